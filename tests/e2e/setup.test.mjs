// The Setup form: a valid setup starts a fresh run with that cluster; an
// impossible one is refused next to the form with Kafka's error, and the
// current run is left exactly as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, shownState, stepButton, openSetup, openTab } from './harness.mjs';

const browser = withBrowser();

async function fillTopic(page, n, name, partitions, rf) {
  await page.getByLabel(`Topic ${n} name`, { exact: true }).fill(name);
  await page.getByLabel(`Topic ${n} partitions`, { exact: true }).fill(String(partitions));
  await page.getByLabel(`Topic ${n} replication factor`, { exact: true }).fill(String(rf));
}

test('a valid setup starts a fresh run with that cluster', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 5; i++) await stepButton(page).click();
  await openSetup(page);
  const setup = page.getByRole('region', { name: 'Setup' });
  await setup.getByLabel('Brokers', { exact: true }).fill('5');
  await fillTopic(page, 1, 'payments', 4, 3);
  await setup.getByRole('button', { name: 'Add topic' }).click();
  await fillTopic(page, 2, 'audit', 1, 1);
  await setup.getByLabel('Setup acks', { exact: true }).selectOption('1');
  await setup.getByLabel('min.insync.replicas', { exact: true }).fill('2');
  await setup.getByLabel('unclean.leader.election.enable', { exact: true }).check();
  await setup.getByLabel('Controllers', { exact: true }).selectOption('5');
  await setup.getByLabel('Seed', { exact: true }).fill('42');
  await setup.getByRole('button', { name: 'Apply setup' }).click();

  await page.getByRole('button', { name: 'Broker 4', exact: true }).waitFor();
  assert.equal(await page.getByRole('button', { name: /^Broker \d+$/ }).count(), 5, 'five brokers on the map');
  await openTab(page, 'Partitions');
  for (const p of ['payments-0', 'payments-1', 'payments-2', 'payments-3', 'audit-0']) {
    await page.getByRole('group', { name: `Partition ${p}` }).waitFor();
  }
  assert.equal(await page.getByRole('group', { name: /^Partition orders-/ }).count(), 0);
  const summary = await page.getByLabel('Current setup').textContent();
  await openTab(page, 'Quorum');
  assert.equal(await page.getByRole('region', { name: 'Controller quorum' }).getByRole('group', { name: /^Controller \d+$/ }).count(), 5);
  assert.match(summary, /5 brokers · 5 controllers · payments \(4 partitions, RF 3\), audit \(1 partitions, RF 1\) · acks=1 · min\.insync\.replicas=2 · unclean election on · seed 42/);
  // A fresh run, booted: an active controller, nothing produced, and the
  // timeline at the end of the boot (the election and registrations).
  assert.match(await page.getByRole('region', { name: 'Controller quorum' }).textContent(), /Active controller: \d/);
  await openTab(page, 'Produce');
  assert.match(await page.getByRole('region', { name: 'Produced records' }).textContent(), /Nothing produced yet/);
  const [at, end] = (await page.locator('.timeline-value').textContent()).split(' / ').map(Number);
  assert.ok(at > 0 && at === end, `the timeline ends at the booted cluster: ${at} / ${end}`);
  // The Produce form offers both topics and starts with the setup's acks.
  assert.deepEqual(await page.getByLabel('Produce topic', { exact: true }).locator('option').allTextContents(), ['payments', 'audit']);
  assert.equal(await page.getByLabel('Acks', { exact: true }).inputValue(), '1');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  const produced = page.getByRole('region', { name: 'Produced records' });
  for (let i = 0; i < 400 && !/offset \d+/.test(await produced.textContent()); i++) await stepButton(page).click();
  assert.match(await produced.textContent(), /client-0 \(acks=1\) key user-42: partition \d, offset 0/);
  // Fetching from the second topic offers its one partition.
  await openTab(page, 'Fetch');
  await page.getByLabel('Fetch topic', { exact: true }).selectOption({ label: 'audit' });
  assert.deepEqual(await page.getByLabel('Partition', { exact: true }).locator('option').allTextContents(), ['0']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an impossible setup is refused next to the form and the run is untouched', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 12; i++) await stepButton(page).click();
  const before = await shownState(page);
  await openSetup(page);
  const setup = page.getByRole('region', { name: 'Setup' });
  const apply = setup.getByRole('button', { name: 'Apply setup' });
  const alert = setup.getByRole('alert');
  const refused = async (pattern) => {
    await apply.click();
    await alert.waitFor();
    await page.waitForFunction(
      ([source]) => new RegExp(source).test(document.querySelector('.setup-error')?.textContent ?? ''),
      [pattern.source],
    );
    assert.match(await alert.textContent(), /Not applied; the current run is unchanged/);
    assert.equal(await shownState(page), before, 'the current run is untouched');
  };

  await fillTopic(page, 1, 'orders', 3, 4);
  await refused(/INVALID_REPLICATION_FACTOR: topic orders has replication factor 4, but the cluster has 3 brokers/);
  await fillTopic(page, 1, 'orders', 0, 1);
  await refused(/INVALID_PARTITIONS: topic orders needs 1 to 1000 partitions, not 0/);
  await fillTopic(page, 1, 'bad name!', 1, 1);
  await refused(/INVALID_CONFIG: "bad name!" is not a legal topic name/);
  await fillTopic(page, 1, 'orders', 1, 1);
  await setup.getByRole('button', { name: 'Add topic' }).click();
  await fillTopic(page, 2, 'orders', 1, 1);
  await refused(/TOPIC_ALREADY_EXISTS: topic orders is defined twice/);
  await setup.getByRole('button', { name: 'Remove topic 2' }).click();
  await setup.getByLabel('Brokers', { exact: true }).fill('12');
  await refused(/The page runs 1 to 9 brokers, not 12/);
  await setup.getByLabel('Brokers', { exact: true }).fill('three');
  await refused(/Brokers must be a whole number/);
  await setup.getByLabel('Brokers', { exact: true }).fill('3');
  await setup.getByLabel('min.insync.replicas', { exact: true }).fill('0');
  await refused(/min\.insync\.replicas must be at least 1/);

  // The same refusal in Korean keeps Kafka's error name.
  await setup.getByLabel('min.insync.replicas', { exact: true }).fill('1');
  await fillTopic(page, 1, 'orders', 3, 4);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="ko"]').waitFor();
  await apply.click();
  await page.waitForFunction(() => /복제 계수는 4/.test(document.querySelector('.setup-error')?.textContent ?? ''));
  assert.match(await alert.textContent(), /^INVALID_REPLICATION_FACTOR: 토픽 orders의 복제 계수는 4인데, 클러스터의 브로커는 3대입니다/);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="en"]').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('the quorum size is chosen from 1, 3 or 5, and unclean election says when it applies', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await openSetup(page);
  const setup = page.getByRole('region', { name: 'Setup' });
  const controllers = setup.getByLabel('Controllers', { exact: true });
  assert.equal(await controllers.isDisabled(), false);
  assert.deepEqual(await controllers.locator('option').allTextContents(), ['1', '3', '5']);
  assert.equal(await controllers.inputValue(), '3');
  assert.match(await setup.textContent(), /The active controller is the Raft leader/);
  assert.match(await setup.textContent(), /may then elect a replica from outside the ISR, which can lose acknowledged writes/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('with two consumers, each fetches on its own', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await openSetup(page);
  const setup = page.getByRole('region', { name: 'Setup' });
  await setup.getByLabel('Consumers', { exact: true }).selectOption('2');
  await setup.getByRole('button', { name: 'Apply setup' }).click();
  await page.getByLabel('Current setup').filter({ hasText: '2 consumers' }).waitFor();
  await openTab(page, 'Produce');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  const produced = page.getByRole('region', { name: 'Produced records' });
  for (let i = 0; i < 400 && !/offset \d+/.test(await produced.textContent()); i++) await stepButton(page).click();
  const partition = /partition (\d+)/.exec(await produced.textContent())[1];
  // The Fetch form now asks which consumer fetches.
  await openTab(page, 'Fetch');
  assert.deepEqual(await page.getByLabel('Consumer', { exact: true }).locator('option').allTextContents(), ['client-3', 'client-4']);
  await page.getByLabel('Consumer', { exact: true }).selectOption({ label: 'client-4' });
  await page.getByLabel('Partition', { exact: true }).selectOption(partition);
  await page.getByRole('button', { name: 'Fetch', exact: true }).click();
  const second = page.getByRole('group', { name: 'client-4' });
  for (let i = 0; i < 400 && !/user-42 = hello/.test(await second.textContent()); i++) await stepButton(page).click();
  assert.match(await second.textContent(), /client-4#\d+ fetch orders-\d offset 0: 1 record/);
  // The first consumer has fetched nothing.
  assert.match(await page.getByRole('group', { name: 'client-3' }).textContent(), /No fetch yet/);
  assert.deepEqual(problems, []);
  await page.close();
});
