// Following a request: clicking its token lights up its path across the
// brokers, the panel lists its hops, and Next hop steps until it moves.
// Also: each produced record says why it went to its partition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, stepButton, pick } from './harness.mjs';

const browser = withBrowser();

const FOLLOW_PRODUCE = /^Follow Produce client-0#\d+$/;

async function produceUntilTokenShows(page, key = 'user-42') {
  await page.getByLabel('Key').fill(key);
  await page.getByLabel('Acks', { exact: true }).selectOption('-1');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  const token = page.getByRole('button', { name: FOLLOW_PRODUCE });
  for (let i = 0; i < 200 && (await token.count()) === 0; i++) await stepButton(page).click();
  assert.equal(await token.count(), 1, 'the produce is on its way');
  return token;
}

test('following an acks=all produce shows its path, its hops and the fetches that released it', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const token = await produceUntilTokenShows(page);
  const name = await token.getAttribute('aria-label');
  const request = name.replace('Follow Produce ', '');
  await token.click();
  const panel = page.getByRole('region', { name: 'Following' });
  await panel.waitFor();
  assert.equal(await panel.locator('h2').textContent(), `Following: Produce ${request}`);
  assert.equal(await page.locator('.tok.followed, .dot.followed').count(), 1, 'the token is marked wherever it is');
  const hops = panel.getByRole('list', { name: 'Hops' });
  const next = panel.getByRole('button', { name: 'Next hop' });
  let lines = await hops.locator('li').count();
  assert.ok(lines >= 1);
  let released = false;
  let releasers = 0;
  for (let i = 0; i < 60 && !(await next.isDisabled()); i++) {
    const clock = await page.locator('.clock').textContent();
    await next.click();
    await page.waitForFunction((c) => document.querySelector('.clock').textContent !== c, clock);
    const now = await hops.locator('li').count();
    assert.ok(now > lines, `Next hop moved ${request}: ${now} lines after ${lines}`);
    lines = now;
    if (!released && (await panel.getByLabel('Released by').count()) > 0) {
      released = true;
      releasers = await page.locator('.tok.releaser').count();
    }
  }
  assert.ok(released, 'an acks=all produce is released by follower fetches');
  assert.ok(releasers >= 1, 'the follower fetches that released it are marked');
  const release = await panel.getByLabel('Released by').textContent();
  assert.match(release, /Released from purgatory at step \d+ on broker \d: follower Fetch broker-\d#\d+(, broker-\d#\d+)* reported .* high watermark moved \(orders-\d 0 → 1\)/);
  assert.match(await panel.textContent(), /Its path is complete/);
  const text = await hops.textContent();
  assert.match(text, new RegExp(`step \\d+ · \\d+ ms · broker-\\d: Produce request ${request} moved from the socket receive buffer to network thread`));
  assert.match(text, /leaves purgatory/);
  assert.match(text, new RegExp(`The response to Produce request ${request} moved from the network to the client`));
  // On the leader, every stage it passed through is marked.
  const leader = Number(/on broker (\d)/.exec(release)[1]);
  await pick(page, `Broker ${leader}`);
  const broker = page.getByRole('region', { name: `Broker ${leader}` });
  const visited = await broker.locator('.place.visited').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label').replace(/ \d+$/, '').replace(/ \(.*\)$/, '')));
  for (const stage of ['Socket receive buffer', 'Network thread', 'Request queue', 'I/O thread', 'Log append', 'Purgatory', 'Response queue', 'Socket send buffer']) {
    assert.ok(visited.includes(stage), `${stage} in ${visited}`);
  }
  for (const other of [0, 1, 2].filter((b) => b !== leader)) {
    await pick(page, `Broker ${other}`);
    assert.equal(await page.getByRole('region', { name: `Broker ${other}` }).locator('.place.visited').count(), 0, 'a produce visits only its leader');
  }
  assert.match(await page.getByRole('region', { name: 'Produced records' }).textContent(), /offset 0/);
  // Korean: the hop lines are narrated in Korean.
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="ko"]').waitFor();
  assert.match(await hops.locator("li").first().textContent(), /^\d+단계 · \d+ ms · (broker|client)-\d: .*[\uAC00-\uD7A3]/);
  assert.match(await panel.getByLabel('Released by').textContent(), /퍼거토리에서 풀려났습니다/);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="en"]').waitFor();
  await panel.getByRole('button', { name: 'Stop following' }).click();
  await panel.waitFor({ state: 'detached' });
  assert.equal(await page.locator('.place.visited').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('each produced record says why it went to its partition', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const produced = page.getByRole('region', { name: 'Produced records' });
  await page.getByLabel('Key').fill('user-42');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  await page.getByLabel('Key').fill('');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  const rows = produced.locator('li');
  for (let i = 0; i < 400 && (await produced.locator('.partition-why').count()) < 2; i++) await stepButton(page).click();
  const keyed = await rows.nth(0).textContent();
  const m = /murmur2 = (-?\d+), & 0x7fffffff = (\d+), (\d+) mod 3 = (\d)/.exec(keyed);
  assert.ok(m, keyed);
  const [murmur2, positive, again, partition] = m.slice(1).map(Number);
  assert.equal(positive, murmur2 & 0x7fffffff);
  assert.equal(again, positive);
  assert.equal(partition, positive % 3);
  for (let i = 0; i < 400 && !/offset/.test(await rows.nth(0).textContent()); i++) await stepButton(page).click();
  assert.match(await rows.nth(0).textContent(), new RegExp(`partition ${partition}, offset 0`));
  assert.match(await rows.nth(1).textContent(), /no key: the sticky partitioner stays on partition \d until about batch\.size bytes went there/);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="ko"]').waitFor();
  assert.match(await rows.nth(0).textContent(), /키 해시: murmur2 = -?\d+, & 0x7fffffff = \d+, \d+ mod 3 = \d/);
  assert.match(await rows.nth(1).textContent(), /키 없음: 스티키 파티셔너/);
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="en"]').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});
