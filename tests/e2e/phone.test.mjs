// The page at a phone's width: nothing scrolls the whole page sideways, and
// the controls still work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, stepButton, openSetup, openTab } from './harness.mjs';

const browser = withBrowser();

const scrollWidth = (page) => page.evaluate(() => document.documentElement.scrollWidth);

test('at 390×844 the page never scrolls sideways, and Produce and Step work', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok((await scrollWidth(page)) <= 391, `at rest: ${await scrollWidth(page)}`);
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  const produced = page.getByRole('region', { name: 'Produced records' });
  let widest = 0;
  for (let i = 0; i < 400 && !/offset \d+/.test(await produced.textContent()); i++) {
    await stepButton(page).click();
    widest = Math.max(widest, await scrollWidth(page));
  }
  assert.match(await produced.textContent(), /partition \d, offset 0/, 'Produce and Step worked');
  assert.ok(widest <= 391, `while stepping the page was ${widest} px wide`);
  // Everything opened at once: the setup form, a followed token, the
  // inspector's decoded batch, and the Korean strings.
  await openSetup(page);
  const token = page.getByRole('button', { name: /^Follow Fetch broker-\d+#\d+$/ }).first();
  await token.click();
  await page.getByRole('region', { name: 'Following' }).waitFor();
  await openTab(page, 'Produce');
  const partition = /partition (\d)/.exec(await produced.textContent())[1];
  await openTab(page, 'Segments');
  const inspector = page.getByRole('region', { name: 'Segment inspector' });
  await inspector.getByLabel('Inspect partition').selectOption({ label: `orders-${partition}` });
  await inspector.getByRole('listitem', { name: 'Batch at position 0' }).click();
  await page.locator('.fields tr').first().click();
  assert.ok((await scrollWidth(page)) <= 391, `opened: ${await scrollWidth(page)}`);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="ko"]').waitFor();
  assert.ok((await scrollWidth(page)) <= 391, `in Korean: ${await scrollWidth(page)}`);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="en"]').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});
