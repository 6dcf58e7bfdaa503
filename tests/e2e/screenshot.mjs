// Takes screenshots of the main views for docs/screenshots/ (not a test):
//   node tests/e2e/screenshot.mjs [steps]
// It serves dist/ like the tests do and drives the page as a learner would.
import { serveDist, launch, openApp } from './harness.mjs';

const steps = Number(process.argv[2] ?? 60);
const server = await serveDist();
const context = await launch();
try {
  const { page, problems } = await openApp(context, server.url);
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  const step = page.getByRole('button', { name: 'Step', exact: true });
  for (let i = 0; i < steps; i++) await step.click();
  await page.screenshot({ path: 'docs/screenshots/desktop.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'docs/screenshots/phone.png', fullPage: false });
  if (problems.length) console.error(problems.join('\n'));
} finally {
  await context.close();
  await server.close();
}
