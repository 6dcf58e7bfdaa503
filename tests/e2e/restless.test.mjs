// A restless user: seeded random actions through the page, found by role and
// accessible name only, each picked among the controls the page shows and
// enables at that moment. After every action the page must have thrown
// nothing, logged no console error and shown no panic banner.
//
// RESTLESS_SEED=N picks the seed (default 1); RESTLESS_ACTIONS=N how many
// actions (default 300). A failure prints the seed and every action so far,
// and writes them to a file that RESTLESS_REPLAY=<file> plays back;
// RESTLESS_VERBOSE=1 prints each action as it goes.
//
// The page is being redesigned, so the actions are a table of
// { role, name, draw, perform } entries: a control that is not on the page
// is simply not a candidate, and a new control with a known name joins in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withBrowser, openApp } from './harness.mjs';

const browser = withBrowser();

const SEED = Number(process.env.RESTLESS_SEED ?? 1);
const ACTIONS = Number(process.env.RESTLESS_ACTIONS ?? 300);
const REPLAY = process.env.RESTLESS_REPLAY;
// One action may boot a large setup or look 60 simulated seconds ahead.
const ACTION_TIMEOUT_MS = 120_000;
// How long a click or a fill waits for its control: one that is not there
// by then was removed by a render (a token that moved on while playing, a
// fault button that became Restart), and the action missed.
const MISS_MS = 10_000;

// mulberry32: a small seeded PRNG, so a seed replays the same choices.
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    below: (n) => Math.floor(next() * n),
    pick(list) {
      return list[this.below(list.length)];
    },
  };
}

// Counts animation frames, so Play is waited on by frames, not by time.
const FRAME_COUNTER = `
  window.__restlessFrames = 0;
  const tick = () => { window.__restlessFrames++; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
`;

async function waitFrames(page, frames) {
  const start = await page.evaluate(() => window.__restlessFrames);
  await page.waitForFunction(([s, n]) => window.__restlessFrames >= s + n, [start, frames], {
    polling: 'raf',
    timeout: ACTION_TIMEOUT_MS,
  });
}

// What a restless user types into a field: sound values, impossible ones,
// and text that is no number at all.
const NUMBERS = ['', '0', '1', '2', '3', '5', '9', '10', '-1', '40', 'k=v', 'three', ' 2 ', '2147483647', '99999999999999999999'];
const WORDS = ['', 'user-42', 'orders', 'topic-2', 'no spaces', 'ünïcödé', 'k=v', 'x'.repeat(300)];
const HEADERS = ['', 'trace-id=7, source=web', 'k=v', '=v', 'novalue', 'a=b=c,,'];

const click = {
  draw: () => null,
  perform: (page, control) => control.click({ timeout: MISS_MS }),
};

const fill = (values) => ({
  draw: (rng) => rng.pick(values),
  perform: (page, control, value) => control.fill(value, { timeout: MISS_MS }),
});

// The controls a restless user touches, by role and accessible name.
const VOCABULARY = [
  { role: 'button', name: /^(Step|Step back|Pause)$/, weight: 6, ...click },
  {
    role: 'button',
    name: /^Play$/,
    weight: 4,
    // Play for some frames, then leave it playing: the next action lands
    // on a page that is still stepping.
    draw: (rng) => rng.pick([1, 2, 5, 20, 60, 200]),
    perform: async (page, control, frames) => {
      await control.click({ timeout: MISS_MS });
      await waitFrames(page, frames);
    },
  },
  { role: 'slider', name: /^Speed$/, weight: 2, draw: (rng) => String(rng.below(9)), perform: (page, control, v) => control.fill(v, { timeout: MISS_MS }) },
  // The stage: pick a node on the map; the tabs of the dock and the details.
  { role: 'button', name: /^(Broker|Controller) \d+$/, weight: 5, ...click },
  { role: 'tab', name: /^(Produce|Fetch|Setup|Share|Partitions|Quorum|Alarms|Segments)$/, weight: 4, ...click },
  { role: 'button', name: /^Show (partitions|quorum|alarms|segments)$/, weight: 1, ...click },
  {
    role: 'slider',
    name: /^Timeline$/,
    weight: 2,
    draw: (rng) => rng.below(1_000_000),
    // The position as a share of the slider's range, so it lands inside it.
    perform: async (page, control, share) => {
      const max = Number(await control.getAttribute('max', { timeout: MISS_MS }));
      await control.fill(String(Math.floor((share / 1_000_000) * (max + 1))), { timeout: MISS_MS });
    },
  },
  { role: 'button', name: /^(Next controller event|Next hop|Stop following)$/, weight: 3, ...click },
  { role: 'button', name: /^Follow /, weight: 2, ...click },
  { role: 'button', name: /^(Produce|Fetch)$/, weight: 5, ...click },
  { role: 'textbox', name: /^(Key|Value)$/, weight: 1, ...fill(WORDS) },
  { role: 'textbox', name: /^Headers$/, weight: 1, ...fill(HEADERS) },
  { role: 'textbox', name: /^(Offset|Min bytes|Max wait ms)$/, weight: 2, ...fill(NUMBERS) },
  { role: 'button', name: /^(Kill|Restart|Shut down|Isolate) (broker|controller) \d+$/, weight: 6, ...click },
  { role: 'button', name: /^Heal network$/, weight: 2, ...click },
  { role: 'button', name: /^(Apply setup|Add topic|Remove topic \d+)$/, weight: 3, ...click },
  { role: 'textbox', name: /^(Brokers|min\.insync\.replicas|Seed|Topic \d+ (name|partitions|replication factor))$/, weight: 3, ...fill([...NUMBERS, ...WORDS]) },
  { role: 'checkbox', name: /^unclean\.leader\.election\.enable$/, weight: 1, ...click },
  {
    role: 'combobox',
    name: /^(Controllers|Consumers|Setup acks|Produce topic|Acks|Consumer|Fetch topic|Partition|Show brokers|Focus|Inspect partition|Inspect replica)$/,
    weight: 3,
    draw: (rng) => rng.below(1_000_000),
    // An option picked by its place among the options there are.
    perform: async (page, control, share) => {
      const options = await control.getByRole('option').count();
      if (options > 0) await control.selectOption({ index: Math.floor((share / 1_000_000) * options) }, { timeout: MISS_MS });
    },
  },
  { role: 'button', name: /^(Segment |Batch at position )/, weight: 1, ...click },
  { role: 'button', name: /^(Language|Theme)$/, weight: 1, ...click },
  {
    role: 'button',
    name: /^Copy share link$/,
    weight: 1,
    // Sometimes reload the page then, which opens the run from the link.
    draw: (rng) => rng.below(3) === 0,
    perform: async (page, control, reload) => {
      await control.click({ timeout: MISS_MS });
      if (reload) {
        await page.reload();
        await page.getByRole('button', { name: 'Step', exact: true }).waitFor({ timeout: ACTION_TIMEOUT_MS });
      }
    },
  },
];

// The controls on the page now, from its accessibility tree: each with its
// role, its accessible name and whether it is enabled.
async function controls(page) {
  const snapshot = await page.locator('body').ariaSnapshot({ timeout: ACTION_TIMEOUT_MS });
  const found = [];
  for (const line of snapshot.split('\n')) {
    const m = /^\s*- (\w+) "((?:[^"\\]|\\.)*)"(.*)$/.exec(line);
    if (!m) continue;
    found.push({ role: m[1], name: JSON.parse(`"${m[2]}"`), disabled: /\[disabled\]/.test(m[3]) });
  }
  return found;
}

// Every (entry, control) pair that can be acted on now, each as often as its
// entry's weight.
function candidates(found) {
  const out = [];
  for (const entry of VOCABULARY) {
    const matching = found.filter((c) => c.role === entry.role && entry.name.test(c.name) && !c.disabled);
    // Names repeated (a token drawn in two places) count once.
    const names = [...new Set(matching.map((c) => c.name))];
    for (const name of names) out.push({ entry, name, weight: entry.weight / names.length });
  }
  return out;
}

function weighted(rng, list) {
  const total = list.reduce((sum, c) => sum + c.weight, 0);
  let x = (rng.below(1_000_000) / 1_000_000) * total;
  for (const c of list) {
    x -= c.weight;
    if (x < 0) return c;
  }
  return list[list.length - 1];
}

// What went wrong after an action, if anything.
async function trouble(page, problems) {
  if (problems.length > 0) return problems.join('\n');
  const banner = page.locator('#panic-banner');
  if ((await banner.count()) > 0 && (await banner.first().isVisible())) {
    return `panic banner: ${await banner.first().textContent()}`;
  }
  return null;
}

async function fail(done, why) {
  const file = join(tmpdir(), `restless-${SEED}-${Date.now()}.json`);
  await writeFile(file, JSON.stringify(done, null, 1));
  const script = done.map((a, i) => `  ${i}: ${a.role} "${a.name}"${a.arg === null ? '' : ` ${JSON.stringify(a.arg)}`}`).join('\n');
  assert.fail(
    `seed ${SEED} (RESTLESS_SEED=${SEED}): ${why}\nafter ${done.length} actions, replay with RESTLESS_REPLAY=${file}:\n${script}`,
  );
}

test(`a restless user never crashes the page (${REPLAY ? `replaying ${REPLAY}` : `seed ${SEED}`})`, async () => {
  await browser.context.addInitScript(FRAME_COUNTER);
  const { page, problems } = await openApp(browser.context, browser.server.url);
  page.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const recorded = REPLAY ? JSON.parse(await readFile(REPLAY, 'utf8')) : null;
  const rng = prng(SEED);
  const done = [];
  const total = recorded ? recorded.length : ACTIONS;
  for (let i = 0; i < total; i++) {
    let action;
    let entry;
    if (recorded) {
      action = recorded[i];
      entry = VOCABULARY.find((e) => e.role === action.role && e.name.test(action.name));
      assert.ok(entry, `the replayed action ${i} has an entry: ${action.role} "${action.name}"`);
    } else {
      const now = candidates(await controls(page));
      assert.ok(now.length > 0, 'the page offers something to do');
      const chosen = weighted(rng, now);
      entry = chosen.entry;
      action = { role: entry.role, name: chosen.name, arg: entry.draw(rng) };
    }
    done.push(action);
    if (process.env.RESTLESS_VERBOSE) console.log(`${i}: ${action.role} "${action.name}" ${JSON.stringify(action.arg)}`);
    const control = page.getByRole(action.role, { name: action.name, exact: true }).first();
    try {
      await entry.perform(page, control, action.arg);
    } catch (error) {
      // A control the last render removed is an action that missed, not a
      // crash; a crash shows up as trouble.
      const why = await trouble(page, problems);
      if (why) await fail(done, why);
      if (error?.name !== 'TimeoutError') await fail(done, `the action failed: ${error}`);
      action.missed = true;
      if (process.env.RESTLESS_VERBOSE) console.log(`   missed: ${String(error).split('\n')[0]}`);
    }
    // Two frames: the render the action caused, and its effects, are done.
    await waitFrames(page, 2);
    const why = await trouble(page, problems);
    if (why) await fail(done, why);
  }
});
