// A developer's look at Play (not a test): kill a node, press Play at the
// default speed, and take a screenshot every second of real time.
//   node tests/e2e/look-play.mjs out-prefix broker|controller [seconds] [width] [height] [ko]
// With ko, the page turns Korean once Play runs (the buttons are found by
// their English names first).
import { serveDist, launch, openApp } from './harness.mjs';
const [prefix, what = 'broker', seconds = '12', width = '1280', height = '720', lang = 'en'] = process.argv.slice(2);
const server = await serveDist();
const context = await launch();
try {
  const { page, problems } = await openApp(context, server.url);
  await page.setViewportSize({ width: Number(width), height: Number(height) });
  if (what === 'broker') {
    const leaderText = await page.getByRole('button', { name: 'Broker 1', exact: true }).textContent();
    await page.getByRole('button', { name: 'Broker 1', exact: true }).click();
    await page.getByRole('button', { name: 'Kill broker 1' }).click();
  } else {
    await page.getByRole('button', { name: 'Controller 1', exact: true }).click();
    await page.getByRole('button', { name: 'Kill controller 1' }).click();
  }
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  if (lang === 'ko') {
    await page.getByRole('button', { name: 'Language' }).click();
    await page.locator('.app[lang="ko"]').waitFor();
  }
  const t0 = Date.now();
  for (let i = 1; i <= Number(seconds); i++) {
    await page.waitForTimeout(1000);
    const situations = await page.locator('.situations').innerText();
    console.log(`${((Date.now() - t0) / 1000).toFixed(1)}s | ${await page.locator('.clock').innerText().then((t) => t.replace('\n', ' '))} | ${situations.replace(/\n/g, ' // ')}`);
    if (i % 3 === 0) await page.screenshot({ path: `${prefix}-${i}.png` });
  }
  if (problems.length) console.error(problems.join('\n'));
} finally {
  await context.close();
  await server.close();
}
