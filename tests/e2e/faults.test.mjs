// Faults, driven from the stage as a learner would: the page opens on a
// booted KRaft cluster; killing a partition leader leaves it the leader in
// the metadata until the active controller fences it, then a new leader
// comes from the ISR; killing the active controller makes the other voters
// elect another; a restarted broker runs again and rejoins the ISR.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, openTab, pick, partitionFacts, activeController } from './harness.mjs';

const browser = withBrowser();

// Clicks "Next controller event" until `done()` holds, at most `limit` times.
async function untilControllerEvent(page, done, limit = 60) {
  const next = page.getByRole('button', { name: 'Next controller event' });
  for (let i = 0; i < limit; i++) {
    if (await done()) return true;
    await next.click();
  }
  return done();
}

const badgeOf = (page) => page.getByRole('group', { name: 'Picked node' }).locator('.badge').first().textContent();

test('the page opens on a booted KRaft cluster with an active controller', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await openTab(page, 'Quorum');
  const quorum = page.getByRole('region', { name: 'Controller quorum' });
  for (const c of [0, 1, 2]) await quorum.getByRole('group', { name: `Controller ${c}` }).waitFor();
  assert.notEqual(await activeController(page), null);
  for (const p of [0, 1, 2]) {
    const { leader, isr } = await partitionFacts(page, `orders-${p}`);
    assert.notEqual(leader, null, `orders-${p} has a leader`);
    assert.equal(isr.length, 3);
  }
  // Every node is on the map, and each offers its faults once picked.
  for (const b of [0, 1, 2]) {
    await pick(page, `Broker ${b}`);
    await page.getByRole('button', { name: `Kill broker ${b}` }).waitFor();
  }
  for (const c of [0, 1, 2]) {
    await pick(page, `Controller ${c}`);
    await page.getByRole('button', { name: `Kill controller ${c}` }).waitFor();
  }
  // The boot is on the timeline: stepping back walks into it.
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.deepEqual(problems, []);
});

test('a killed leader is fenced and replaced from the ISR; a restart rejoins it', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const { leader: old } = await partitionFacts(page, 'orders-0');
  await pick(page, `Broker ${old}`);
  await page.getByRole('button', { name: `Kill broker ${old}` }).click();
  await page.getByRole('button', { name: `Restart broker ${old}` }).waitFor();
  assert.equal(await badgeOf(page), 'stopped');
  // Until its session expires, the metadata still names the dead broker,
  // the stage counts down to the fence, and the partition's Why? says so.
  assert.match(await page.getByRole('status', { name: 'Going on now' }).textContent(), new RegExp(`Broker ${old} sends no heartbeat .*fenced in \\d+\\.\\d s.*leader of .*orders-0`));
  assert.equal((await partitionFacts(page, 'orders-0')).leader, old);
  const card = page.getByRole('group', { name: 'Partition orders-0' });
  await card.getByLabel('Why? orders-0').click();
  await card.getByText(`Broker ${old} is down, but the metadata still names it leader`).waitFor();

  const moved = await untilControllerEvent(page, async () => {
    const { leader } = await partitionFacts(page, 'orders-0');
    return leader !== null && leader !== old;
  });
  assert.ok(moved, 'a new leader was elected');
  const after = await partitionFacts(page, 'orders-0');
  assert.ok(!after.isr.includes(old), `the dead broker left the ISR: ${after.isr}`);
  // Why? now tells the controller's election and why the dead broker left
  // the ISR.
  await card.getByText(new RegExp(`^Broker ${after.leader} has led since leader epoch \\d+: its leader, broker ${old}, was fenced, so the active controller chose the first replica`)).waitFor();
  await card.getByText(`Broker ${old} is out of the ISR: it is down`).waitFor();
  const narration = await page.getByRole('region', { name: 'What just happened' }).textContent();
  assert.ok(narration.length > 0);

  await page.getByRole('button', { name: `Restart broker ${old}` }).click();
  await page.getByRole('button', { name: `Kill broker ${old}` }).waitFor();
  const rejoined = await untilControllerEvent(page, async () => (await partitionFacts(page, 'orders-0')).isr.includes(old), 200);
  assert.ok(rejoined, 'the restarted broker rejoined the ISR');
  await card.getByText(`Broker ${old}, the preferred leader, could lead again`).waitFor();
  assert.equal(await badgeOf(page), 'running');
  assert.deepEqual(problems, []);
});

test('killing the active controller makes the others elect a new one', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const first = await activeController(page);
  await pick(page, `Controller ${first}`);
  await page.getByRole('button', { name: `Kill controller ${first}` }).click();
  await page.getByRole('button', { name: `Restart controller ${first}` }).waitFor();
  assert.match(await page.getByRole('status', { name: 'Going on now' }).textContent(), /No active controller: the voters' fetch timeout runs out in/);
  const elected = await untilControllerEvent(page, async () => {
    const now = await activeController(page);
    return now !== null && now !== first;
  });
  assert.ok(elected, 'another controller became active');
  const quorum = page.getByRole('region', { name: 'Controller quorum' });
  await quorum.getByRole('group', { name: `Controller ${first}` }).getByText('stopped').waitFor();
  assert.deepEqual(problems, []);
});

test('a controlled shutdown moves leadership first; the broker then stops', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const { leader: old } = await partitionFacts(page, 'orders-0');
  await pick(page, `Broker ${old}`);
  await page.getByRole('button', { name: `Shut down broker ${old}` }).click();
  // Leadership must move while the broker still runs: record, event by
  // event, whether orders-0 had another leader before the broker stopped.
  let movedWhileRunning = false;
  const stopped = await untilControllerEvent(page, async () => {
    const badge = await badgeOf(page);
    const { leader } = await partitionFacts(page, 'orders-0');
    if (badge !== 'stopped' && leader !== null && leader !== old) movedWhileRunning = true;
    return badge === 'stopped';
  });
  assert.ok(stopped, 'the broker stopped once its leaderships had moved');
  assert.ok(movedWhileRunning, 'orders-0 had a new leader while the old one was still running');
  const after = await partitionFacts(page, 'orders-0');
  assert.ok(after.leader !== null && after.leader !== old, `orders-0 moved to another leader: ${after.leader}`);
  assert.ok(!after.isr.includes(old));
  await page.getByRole('button', { name: `Restart broker ${old}` }).waitFor();
  assert.deepEqual(problems, []);
});

test('an isolated leader is fenced behind the partition; after Heal it rejoins', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const { leader: old } = await partitionFacts(page, 'orders-0');
  await pick(page, `Broker ${old}`);
  await page.getByRole('button', { name: `Isolate broker ${old}` }).click();
  await openTab(page, 'Quorum');
  const cuts = page.getByRole('region', { name: 'Network partitions' });
  assert.match(await cuts.textContent(), new RegExp(`broker-${old} ✂ `));
  const moved = await untilControllerEvent(page, async () => {
    const { leader } = await partitionFacts(page, 'orders-0');
    return leader !== null && leader !== old;
  });
  assert.ok(moved, 'the controllers, cut off from it, fenced it and elected another leader');
  assert.equal(await badgeOf(page), 'isolated');
  assert.match(await page.getByRole('button', { name: `Broker ${old}`, exact: true }).textContent(), /isolated/);
  await page.getByRole('button', { name: 'Heal network' }).click();
  await page.getByRole('button', { name: 'Heal network' }).waitFor({ state: 'detached' });
  const rejoined = await untilControllerEvent(page, async () => (await partitionFacts(page, 'orders-0')).isr.includes(old), 200);
  assert.ok(rejoined, 'after the heal it caught up and rejoined the ISR');
  assert.deepEqual(problems, []);
});
