// Faults, driven as a learner would: the page opens on a booted KRaft
// cluster; killing a partition leader leaves it the leader in the metadata
// until the active controller fences it, then a new leader comes from the
// ISR; killing the active controller makes the other voters elect another;
// a restarted broker runs again and rejoins the ISR.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp } from './harness.mjs';

const browser = withBrowser();

async function activeController(page) {
  const text = await page.getByRole('region', { name: 'Controller quorum' }).getByText(/^Active controller: /).textContent();
  const m = /Active controller: (\d+|none)/.exec(text);
  assert.ok(m, `the quorum names its active controller: ${text}`);
  return m[1] === 'none' ? null : Number(m[1]);
}

async function partitionFacts(page, name) {
  const text = await page.getByRole('group', { name: `Partition ${name}` }).textContent();
  const leader = /Leader: (\d+|none)/.exec(text)[1];
  const isr = JSON.parse(/ISR (\[[\d, ]*\])/.exec(text)[1]);
  return { leader: leader === 'none' ? null : Number(leader), isr };
}

// Clicks "Next controller event" until `done()` holds, at most `limit` times.
async function untilControllerEvent(page, done, limit = 60) {
  const next = page.getByRole('button', { name: 'Next controller event' });
  for (let i = 0; i < limit; i++) {
    if (await done()) return true;
    await next.click();
  }
  return done();
}

test('the page opens on a booted KRaft cluster with an active controller', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const quorum = page.getByRole('region', { name: 'Controller quorum' });
  await quorum.waitFor();
  for (const c of [0, 1, 2]) {
    await quorum.getByRole('group', { name: `Controller ${c}` }).waitFor();
    await page.getByRole('button', { name: `Kill controller ${c}` }).waitFor();
  }
  assert.notEqual(await activeController(page), null);
  for (const p of [0, 1, 2]) {
    const { leader, isr } = await partitionFacts(page, `orders-${p}`);
    assert.notEqual(leader, null, `orders-${p} has a leader`);
    assert.equal(isr.length, 3);
  }
  for (const b of [0, 1, 2]) await page.getByRole('button', { name: `Kill broker ${b}` }).waitFor();
  // The boot is on the timeline: stepping back walks into it.
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.deepEqual(problems, []);
});

test('a killed leader is fenced and replaced from the ISR; a restart rejoins it', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const { leader: old } = await partitionFacts(page, 'orders-0');
  await page.getByRole('button', { name: `Kill broker ${old}` }).click();
  const broker = page.getByRole('region', { name: `Broker ${old}` });
  await broker.getByText('stopped', { exact: true }).waitFor();
  await page.getByRole('button', { name: `Restart broker ${old}` }).waitFor();
  // Until its session expires, the metadata still names the dead broker,
  // and the partition's Why? says so.
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
  // Why? now gives the election rule and why the dead broker left the ISR.
  await card.getByText(`Broker ${after.leader} leads: the preferred leader, broker ${old}, is down`).waitFor();
  await card.getByText(`Broker ${old} is out of the ISR: it is down`).waitFor();
  const narration = await page.getByRole('region', { name: 'What just happened' }).textContent();
  assert.ok(narration.length > 0);

  await page.getByRole('button', { name: `Restart broker ${old}` }).click();
  await page.getByRole('button', { name: `Kill broker ${old}` }).waitFor();
  const rejoined = await untilControllerEvent(page, async () => (await partitionFacts(page, 'orders-0')).isr.includes(old), 200);
  assert.ok(rejoined, 'the restarted broker rejoined the ISR');
  await broker.getByText('running', { exact: true }).waitFor();
  assert.deepEqual(problems, []);
});

test('killing the active controller makes the others elect a new one', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const first = await activeController(page);
  await page.getByRole('button', { name: `Kill controller ${first}` }).click();
  await page.getByRole('button', { name: `Restart controller ${first}` }).waitFor();
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
  await page.getByRole('button', { name: `Shut down broker ${old}` }).click();
  const broker = page.getByRole('region', { name: `Broker ${old}` });
  const stopped = await untilControllerEvent(page, async () => (await broker.getByText('stopped', { exact: true }).count()) > 0);
  assert.ok(stopped, 'the broker stopped once its leaderships had moved');
  const after = await partitionFacts(page, 'orders-0');
  assert.ok(after.leader !== null && after.leader !== old, `orders-0 moved to another leader: ${after.leader}`);
  assert.ok(!after.isr.includes(old));
  await page.getByRole('button', { name: `Restart broker ${old}` }).waitFor();
  assert.deepEqual(problems, []);
});

test('an isolated leader is fenced behind the partition; after Heal it rejoins', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const { leader: old } = await partitionFacts(page, 'orders-0');
  await page.getByRole('button', { name: `Isolate broker ${old}` }).click();
  const cuts = page.getByRole('region', { name: 'Network partitions' });
  assert.match(await cuts.textContent(), new RegExp(`broker-${old} ✂ `));
  const moved = await untilControllerEvent(page, async () => {
    const { leader } = await partitionFacts(page, 'orders-0');
    return leader !== null && leader !== old;
  });
  assert.ok(moved, 'the controllers, cut off from it, fenced it and elected another leader');
  await page.getByRole('region', { name: `Broker ${old}` }).getByText('fenced', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Heal network' }).click();
  assert.equal(await page.getByRole('button', { name: 'Heal network' }).isDisabled(), true);
  const rejoined = await untilControllerEvent(page, async () => (await partitionFacts(page, 'orders-0')).isr.includes(old), 200);
  assert.ok(rejoined, 'after the heal it caught up and rejoined the ISR');
  assert.deepEqual(problems, []);
});
