// Takes the screenshots in docs/screenshots (not a test):
//   node tests/e2e/screenshot.mjs [out-dir]
// Serves dist/ like the tests do and drives the page as a learner would.
// Each picture is the first viewport, what a learner sees before scrolling:
// at 1280×720 and 390×844, in English and Korean, light and dark; the
// stage during a failover (the fencing countdown) and during an acks=all
// produce (a token in purgatory); at 1440×900; and one full page.
import { mkdir } from 'node:fs/promises';
import { serveDist, launch, openApp, stepButton, pick, openSetup } from './harness.mjs';

const out = process.argv[2] ?? 'docs/screenshots';
await mkdir(out, { recursive: true });
const server = await serveDist();
const context = await launch();

// A fresh page: the first hint shows, as a newcomer sees it.
async function fresh({ lang = 'en', scheme = 'light', width = 1280, height = 720 } = {}) {
  const { page, problems } = await openApp(context, server.url);
  await page.evaluate(() => localStorage.removeItem('kafkascope.hint-used'));
  await page.reload();
  await stepButton(page).waitFor();
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme: scheme });
  if ((await page.locator(`.app[lang="${lang}"]`).count()) === 0) {
    await page.getByRole('button', { name: 'Language' }).click();
    await page.locator(`.app[lang="${lang}"]`).waitFor();
  }
  return { page, problems };
}

async function shot(page, name) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${out}/${name}.png` });
}

// Produce with acks=all and step until the produce waits in purgatory.
async function produceIntoPurgatory(page) {
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 40; i++) {
    await stepButton(page).click();
    if (/waits in broker \d's purgatory|퍼거토리에서 기다립니다/.test(await page.locator('.situations').textContent())) break;
  }
}

// Kill the leader of orders-0 and step to the middle of its session timeout.
async function killLeader(page) {
  const leader = await page.evaluate(() => {
    const card = [...document.querySelectorAll('.cluster-map [role=button][aria-label^="Broker "]')].find((b) => b.textContent.includes('★ orders-0'));
    return Number(/(\d+)$/.exec(card.getAttribute('aria-label'))[1]);
  });
  await pick(page, `Broker ${leader}`);
  await page.getByRole('button', { name: `Kill broker ${leader}` }).click();
  await page.getByLabel('Focus').selectOption({ label: 'Everything' });
  const clock = page.locator('.clock strong');
  const start = Number(/[\d.]+/.exec(await clock.textContent())[0]);
  for (let i = 0; i < 4000 && Number(/[\d.]+/.exec(await clock.textContent())[0]) < start + 4; i += 1) {
    await page.getByRole('button', { name: 'Step', exact: true }).click();
  }
}

try {
  for (const scheme of ['light', 'dark']) {
    const suffix = scheme === 'light' ? '' : '-dark';
    for (const lang of ['en', 'ko']) {
      const tag = lang === 'en' ? '' : '-ko';
      const { page, problems } = await fresh({ lang, scheme });
      await shot(page, `first-viewport${tag}${suffix}`);
      await produceIntoPurgatory(page);
      await shot(page, `produce${tag}${suffix}`);
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, `phone${tag}${suffix}`);
      if (problems.length) console.error(problems.join('\n'));
      await page.close();
    }
  }
  {
    const { page, problems } = await fresh();
    await killLeader(page);
    await shot(page, 'failover');
    await page.setViewportSize({ width: 1440, height: 900 });
    await shot(page, 'failover-1440');
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.screenshot({ path: `${out}/full-page.png`, fullPage: true });
    await openSetup(page);
    await page.getByLabel('Topic 1 replication factor', { exact: true }).fill('4');
    await page.getByRole('button', { name: 'Apply setup' }).click();
    await page.locator('.setup-error').waitFor();
    await shot(page, 'setup');
    if (problems.length) console.error(problems.join('\n'));
    await page.close();
  }
} finally {
  await context.close();
  await server.close();
}
