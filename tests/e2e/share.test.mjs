// Share links: the address holds the seed, the setup and the action log,
// and opening it in a fresh page shows the same session at the same step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, shownState, stepButton, openSetup, openTab } from './harness.mjs';

const browser = withBrowser();

async function copyLink(page) {
  await openTab(page, 'Share');
  await page.getByRole('button', { name: 'Copy share link' }).click();
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  await page.waitForFunction(() => document.querySelector('.share-status').textContent.length > 0);
  return page.url();
}

test('a share link reopens the same session at the same step', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  // A setup other than the default, so the link must carry it.
  await openSetup(page);
  await page.getByLabel('Brokers', { exact: true }).fill('4');
  await page.getByLabel('Topic 1 partitions', { exact: true }).fill('5');
  await page.getByLabel('Seed', { exact: true }).fill('7');
  await page.getByRole('button', { name: 'Apply setup' }).click();
  await page.getByRole('button', { name: 'Broker 3', exact: true }).waitFor();

  await openTab(page, 'Produce');
  await page.getByLabel('Key').fill('alice');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 30; i++) await stepButton(page).click();
  await page.getByLabel('Key').fill('');
  await page.getByLabel('Acks', { exact: true }).selectOption('1');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 40; i++) await stepButton(page).click();
  await openTab(page, 'Fetch');
  await page.getByLabel('Offset').fill('0');
  await page.getByRole('button', { name: 'Fetch', exact: true }).click();
  for (let i = 0; i < 20; i++) await stepButton(page).click();
  await openTab(page, 'Produce');
  // Back a few steps: the link keeps the future too, and the position.
  for (let i = 0; i < 6; i++) await page.getByRole('button', { name: 'Step back', exact: true }).click();
  const original = await shownState(page);
  const link = await copyLink(page);
  assert.match(link, /#s=[A-Za-z0-9_-]+$/, 'base64url without padding');

  await openTab(page, 'Produce');
  const { page: opened, problems: openedProblems } = await openApp(browser.context, link, '');
  assert.equal(await shownState(opened), original);
  await openSetup(opened);
  assert.match(await opened.getByLabel('Current setup').textContent(), /4 brokers · 3 controllers · orders \(5 partitions, RF 3\) .* seed 7/);
  await openTab(opened, 'Produce');
  // The same future: a Step on each page shows the same thing.
  await stepButton(page).click();
  await stepButton(opened).click();
  assert.equal(await shownState(opened), await shownState(page));
  assert.equal(await opened.getByRole('alert').count(), 0);
  assert.deepEqual(problems, []);
  assert.deepEqual(openedProblems, []);
  await opened.close();
  await page.close();
});

test('a malformed link says so and opens the default cluster', async () => {
  for (const fragment of ['#s=%%%not-base64', `#s=${Buffer.from('{"v":2}').toString('base64url')}`, `#s=${Buffer.from('{"v":9}').toString('base64url')}`]) {
    const { page, problems } = await openApp(browser.context, browser.server.url, fragment);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /This share link could not be opened: .+\. The default cluster is shown instead\./);
    await openSetup(page);
    assert.match(await page.getByLabel('Current setup').textContent(), /^3 brokers · 3 controllers · orders \(3 partitions, RF 3\) · acks=all/);
    assert.equal(await page.getByRole('button', { name: /^Broker \d+$/ }).count(), 3);
    await openTab(page, 'Quorum');
    assert.match(await page.getByRole('region', { name: 'Controller quorum' }).textContent(), /Active controller: \d/);
    await openTab(page, 'Produce');
    // The default cluster works as usual.
    await page.getByRole('button', { name: 'Produce', exact: true }).click();
    await stepButton(page).click();
    assert.deepEqual(problems, []);
    await page.close();
  }
  // In Korean too.
  {
    const { page, problems } = await openApp(browser.context, browser.server.url);
    await page.getByRole('button', { name: 'Language' }).click();
    await page.locator('.app[lang="ko"]').waitFor();
    await page.goto(`${browser.server.url}#s=%%%`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), /^이 공유 링크를 열 수 없습니다: base64url 형식이 아닙니다.*대신 기본 클러스터를 보여 줍니다\.$/);
    await page.getByRole('button', { name: 'Language' }).click();
    await page.locator('.app[lang="en"]').waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  }
  // A link made before the generator changed says it is from an earlier
  // KafkaScope, rather than replaying another run than the one shared.
  {
    const { page, problems } = await openApp(browser.context, browser.server.url, `#s=${Buffer.from('{"v":1}').toString('base64url')}`);
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').textContent(), /could not be opened: it was made by an earlier KafkaScope, whose runs this page no longer replays step for step\./);
    assert.deepEqual(problems, []);
    await page.close();
  }
  // A link whose setup is impossible names Kafka's error.
  const bad = { v: 2, setup: { brokers: 2, topics: [{ name: 'orders', partitions: 1, 'replication.factor': 3 }], acks: 'all', 'min.insync.replicas': 1, 'unclean.leader.election.enable': false, seed: 1 }, actions: [], end_step: 0, position: 0 };
  const { page, problems } = await openApp(browser.context, browser.server.url, `#s=${Buffer.from(JSON.stringify(bad)).toString('base64url')}`);
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /INVALID_REPLICATION_FACTOR/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a link pasted into the address bar of an open page opens too', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 15; i++) await stepButton(page).click();
  const link = await copyLink(page);
  const shown = await shownState(page);
  // Start over, then paste the link back.
  await openSetup(page);
  await page.getByRole('button', { name: 'Apply setup' }).click();
  await openTab(page, 'Produce');
  await page.waitForFunction(() => /Nothing produced yet/.test(document.querySelector('.produced').textContent));
  assert.equal(new URL(page.url()).hash, '', 'a new setup takes the old link out of the address bar');
  await page.evaluate((hash) => { location.hash = hash; }, new URL(link).hash);
  await page.waitForFunction(() => !/Nothing produced yet/.test(document.querySelector('.produced').textContent));
  assert.equal(await shownState(page), shown);
  assert.deepEqual(problems, []);
  await page.close();
});
