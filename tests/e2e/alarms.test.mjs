// Alarms: with unclean leader election on, isolating a partition's
// followers lets the leader acknowledge writes alone; once that leader dies
// and the network heals, a follower that never had them is elected, and the
// checker raises an alarm that jumps to the step that lost the write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, openSetup, openTab, pick, partitionFacts } from './harness.mjs';

const browser = withBrowser();

async function acked(page) {
  return ((await page.getByRole('region', { name: 'Produced records' }).textContent()).match(/offset \d+/g) ?? []).length;
}

// Plays at top speed until `condition` holds in the page, then pauses.
async function playUntil(page, condition, arg) {
  await page.getByRole('slider', { name: 'Speed' }).fill('8');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(condition, arg, { timeout: 150_000 });
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
}

async function produce(page, n) {
  await openTab(page, 'Produce');
  await page.getByLabel('Key').fill('user-42');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  await playUntil(page, (n) => (document.querySelector('.produced').textContent.match(/offset \d+/g) ?? []).length >= n, n);
  assert.equal(await acked(page), n, `record ${n} was acknowledged`);
}

test('an unclean election loses an acknowledged write, and the alarm jumps to its step', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await openSetup(page);
  await page.getByLabel('unclean.leader.election.enable', { exact: true }).check();
  await page.getByRole('button', { name: 'Apply setup' }).click();
  await openTab(page, 'Alarms');
  const alarms = page.getByRole('region', { name: 'Alarms' });
  assert.match(await alarms.textContent(), /No invariant is broken so far/);

  await produce(page, 1);
  const partition = /partition (\d+), offset/.exec(await page.getByRole('region', { name: 'Produced records' }).textContent())[1];
  const { leader } = await partitionFacts(page, `orders-${partition}`);
  for (const b of [0, 1, 2].filter((b) => b !== leader)) {
    await pick(page, `Broker ${b}`);
    await page.getByRole('button', { name: `Isolate broker ${b}` }).click();
  }
  // The followers are fenced after broker.session.timeout.ms; then the
  // leader, alone in the ISR, acknowledges with min.insync.replicas=1.
  await produce(page, 2);
  await pick(page, `Broker ${leader}`);
  await page.getByRole('button', { name: `Kill broker ${leader}` }).click();
  await page.getByRole('button', { name: 'Heal network' }).click();
  const next = page.getByRole('button', { name: 'Next controller event' });
  for (let i = 0; i < 80; i++) {
    const now = (await partitionFacts(page, `orders-${partition}`)).leader;
    if (now !== null && now !== leader) break;
    await next.click();
  }
  await produce(page, 3);
  await openTab(page, 'Alarms');
  await playUntil(page, () => /Acknowledged writes are never lost/.test(document.querySelector('.alarms')?.textContent ?? ''));
  const text = await alarms.textContent();
  assert.match(text, /Alarms \([1-9]\d*\)/);
  assert.match(text, /Acknowledged writes are never lost/);
  assert.match(text, /unclean leader election/);
  // The alarm says what was lost in words, with no Rust range syntax.
  assert.match(text, /The write that client-0 had acknowledged at step \d+, at offsets? \d+( to \d+)? of orders-\d, is gone/);
  assert.doesNotMatch(text, /\.\.=|Some\(/);
  const jump = alarms.getByRole('button', { name: /^Jump to step \d+$/ }).first();
  const target = Number(/(\d+)$/.exec(await jump.getAttribute('aria-label'))[1]);
  await jump.click();
  const shown = Number(/step (\d+)/.exec(await page.locator('.clock').textContent())[1]);
  assert.ok(shown >= target, `the page shows the state right after step ${target}: ${shown}`);
  assert.match(await alarms.textContent(), /Acknowledged writes are never lost/);
  // One step back from there, the write is not lost yet.
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.match(await alarms.textContent(), /No invariant is broken so far/);
  assert.deepEqual(problems, []);
});
