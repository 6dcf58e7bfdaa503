// Themes: the page follows the system's colour scheme until the Theme
// button picks one, which the browser then remembers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp } from './harness.mjs';

const browser = withBrowser();

// The page's background, as "r,g,b".
const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor.match(/\d+/g).slice(0, 3).join(','));
const isDark = async (page) => {
  const [r, g, b] = (await background(page)).split(',').map(Number);
  return (r + g + b) / 3 < 100;
};

test('the theme follows prefers-color-scheme, and the Theme button overrides it and is remembered', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await isDark(page), false);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor !== 'rgb(243, 244, 247)');
  assert.equal(await isDark(page), true);
  const theme = page.getByRole('button', { name: 'Theme' });
  // In dark, the button offers light.
  await page.waitForFunction(() => /Light/.test(document.querySelector('button.theme').textContent));
  await theme.click();
  await page.locator('html[data-theme="light"]').waitFor({ state: 'attached' });
  assert.equal(await isDark(page), false, 'the choice beats the system scheme');
  await page.reload();
  await page.getByRole('button', { name: 'Step', exact: true }).waitFor();
  assert.equal(await page.locator('html').getAttribute('data-theme'), 'light', 'remembered across a reload');
  assert.equal(await isDark(page), false);
  await page.getByRole('button', { name: 'Theme' }).click();
  await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await isDark(page), true);
  // Tokens stay readable: text and fill differ strongly in both palettes.
  const legend = page.getByLabel('Legend').locator('.chip-swatch.produce').first();
  const colours = await legend.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
  assert.notEqual(colours[0], colours[1]);
  await page.evaluate(() => localStorage.removeItem('kafkascope.theme'));
  assert.deepEqual(problems, []);
  await page.close();
});
