// A quick look for a developer (not a test): the first viewport after a few
// actions, at a size and in a language.
//   node tests/e2e/look.mjs out.png [width] [height] [steps] [load] [ko] [dark]
import { serveDist, launch, openApp, openTab, stepButton } from './harness.mjs';
const [out, width = '1280', height = '720', steps = '0', ...flags] = process.argv.slice(2);
const server = await serveDist();
const context = await launch();
try {
  const { page, problems } = await openApp(context, server.url);
  await page.setViewportSize({ width: Number(width), height: Number(height) });
  if (flags.includes('dark')) await page.emulateMedia({ colorScheme: 'dark' });
  if (flags.includes('load')) {
    // A load of the form's defaults, played at 1× for 30 records.
    await openTab(page, 'Load');
    await page.getByRole('button', { name: 'Start load', exact: true }).click();
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.waitForFunction(() => /: ([3-9]\d|\d{3,}) sent so far/.test(document.querySelector('.load-running span')?.textContent ?? ''));
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
  }
  if (flags.includes('ko')) {
    await page.getByRole('button', { name: 'Language' }).click();
    await page.locator('.app[lang="ko"]').waitFor();
  }
  if (Number(steps) > 0) {
    await page.getByRole('button', { name: 'Produce', exact: true }).click();
    for (let i = 0; i < Number(steps); i++) await stepButton(page).click();
  }
  if (flags.includes('kill')) {
    await page.getByRole('button', { name: 'Broker 1', exact: true }).click();
    await page.getByRole('button', { name: 'Kill broker 1' }).click();
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: out, fullPage: flags.includes('full') });
  if (problems.length) console.error(problems.join('\n'));
} finally {
  await context.close();
  await server.close();
}
