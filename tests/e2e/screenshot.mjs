// Takes screenshots of the main views (not a test):
//   node tests/e2e/screenshot.mjs [steps] [out-dir] [--parts]
// It serves dist/ like the tests do and drives the page as a learner would:
// desktop (1280×720, full page) and phone (390×844) in the light and dark
// themes, the Setup form with a refused setup, and a followed request.
import { mkdir } from 'node:fs/promises';
import { serveDist, launch, openApp, stepButton, openSetup } from './harness.mjs';

const steps = Number(process.argv[2] ?? 60);
const out = process.argv[3] ?? 'docs/screenshots';
// Pieces of the phone page too, to look at one by one (not for docs/).
const parts = process.argv.includes('--parts');
await mkdir(out, { recursive: true });
const server = await serveDist();
const context = await launch();
try {
  for (const scheme of ['light', 'dark']) {
    const { page, problems } = await openApp(context, server.url);
    await page.emulateMedia({ colorScheme: scheme });
    const suffix = scheme === 'light' ? '' : '-dark';
    await page.getByRole('button', { name: 'Produce', exact: true }).click();
    // Step until the produce is on its way, follow it for a few hops, then
    // take the rest of the steps.
    const token = page.getByRole('button', { name: /^Follow Produce client-0#\d+$/ });
    for (let i = 0; i < 300 && (await token.count()) === 0; i++) await stepButton(page).click();
    await token.first().click();
    for (let i = 0; i < 6; i++) await page.getByRole('button', { name: 'Next hop' }).click();
    for (let i = 0; i < steps; i++) await stepButton(page).click();
    await page.screenshot({ path: `${out}/desktop${suffix}.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${out}/phone${suffix}.png`, fullPage: false });
    if (parts) {
      for (const [name, selector] of [['partitions', '.partitions-overview'], ['following', '.following'], ['broker', '.broker >> nth=0'], ['produced', '.produced'], ['inspector', '.inspector']]) {
        await page.locator(selector).screenshot({ path: `${out}/phone-${name}${suffix}.png` });
      }
    }
    await page.setViewportSize({ width: 1280, height: 720 });
    await openSetup(page);
    await page.getByLabel('Topic 1 replication factor', { exact: true }).fill('4');
    await page.getByRole('button', { name: 'Apply setup' }).click();
    await page.locator('.setup-error').waitFor();
    await page.locator('.setup').screenshot({ path: `${out}/setup${suffix}.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.setup').screenshot({ path: `${out}/setup-phone${suffix}.png` });
    if (problems.length) console.error(problems.join('\n'));
    await page.close();
  }
  if (parts) {
    // Korean, at both widths.
    const { page } = await openApp(context, server.url);
    await page.getByRole('button', { name: 'Language' }).click();
    await page.locator('.app[lang="ko"]').waitFor();
    await page.getByRole('button', { name: 'Produce', exact: true }).click();
    for (let i = 0; i < steps; i++) await stepButton(page).click();
    await openSetup(page);
    await page.screenshot({ path: `${out}/desktop-ko.png`, fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${out}/phone-ko.png`, fullPage: false });
    await page.getByRole('button', { name: 'Language' }).click();
    await page.locator('.app[lang="en"]').waitFor();
    await page.close();
  }
} finally {
  await context.close();
  await server.close();
}
