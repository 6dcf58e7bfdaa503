// The stage, met as a newcomer meets it: the cluster picture and a broker's
// insides in the first screen, time a person can watch at the default
// speed, Step that follows the learner's own record, the first hint, and
// plain language everywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, openTab, pick, partitionFacts } from './harness.mjs';

const browser = withBrowser();

// Installs an observer in the page that, on every animation frame while it
// runs, notes for each pattern how long (in real ms) text matching it was
// on the stage, and when each first and last showed.
async function watch(page, patterns) {
  await page.evaluate((sources) => {
    const found = sources.map(() => ({ first: null, last: null, shown: 0 }));
    let before = performance.now();
    window.__watch = { found, stop: false };
    const frame = (now) => {
      const text = document.querySelector('.stage')?.textContent ?? '';
      sources.forEach((source, i) => {
        if (new RegExp(source).test(text)) {
          const f = found[i];
          if (f.first === null) f.first = now;
          else f.shown += now - before;
          f.last = now;
        }
      });
      before = now;
      if (!window.__watch.stop) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }, patterns.map((p) => p.source));
}

const watched = (page) => page.evaluate(() => {
  window.__watch.stop = true;
  return window.__watch.found;
});

// The broker the map marks as leader of a partition (★ on its chip).
const mapLeader = (page, partition) => page.evaluate((p) => {
  const card = [...document.querySelectorAll('.cluster-map [role=button][aria-label^="Broker "]')].find((b) => b.textContent.includes(`★ ${p}`));
  return card ? Number(/(\d+)$/.exec(card.getAttribute('aria-label'))[1]) : null;
}, partition);

// The controller the map marks active.
const mapActive = (page) => page.evaluate(() => {
  const node = document.querySelector('.cluster-map .map-node.controller.active');
  return node ? Number(/(\d+)$/.exec(node.getAttribute('aria-label'))[1]) : null;
});

test('a newcomer kills a partition leader from the stage, presses Play, and watches the fence and the election', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const old = await mapLeader(page, 'orders-0');
  assert.notEqual(old, null, 'the map shows who leads orders-0');
  assert.equal((await partitionFacts(page, 'orders-0')).leader, old);
  await pick(page, `Broker ${old}`);
  await page.getByRole('button', { name: `Kill broker ${old}` }).click();
  await watch(page, [new RegExp(`Broker ${old} sends no heartbeat.*fenced in \\d+\\.\\d s`), new RegExp(`Broker ${old} is fenced: the active controller elects new leaders`)]);
  const start = Date.now();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  // The default speed, untouched: the new leader shows within a minute.
  await page.waitForFunction(
    ([p, o]) => {
      const card = [...document.querySelectorAll('.cluster-map [role=button][aria-label^="Broker "]')].find((b) => b.textContent.includes(`★ ${p}`));
      return card && !card.getAttribute('aria-label').endsWith(` ${o}`);
    },
    ['orders-0', old],
    { timeout: 60_000, polling: 'raf' },
  );
  const elapsed = Date.now() - start;
  const [countdown, election] = await watched(page);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  assert.ok(elapsed <= 60_000, `the new leader showed after ${elapsed} ms`);
  assert.ok(countdown.shown >= 1_000, `the fencing countdown was on screen ${Math.round(countdown.shown)} ms`);
  assert.ok(election.shown >= 1_000, `the election was on screen ${Math.round(election.shown)} ms`);
  assert.ok(countdown.first < election.first, 'first the countdown, then the election');
  const now = await mapLeader(page, 'orders-0');
  assert.notEqual(now, old);
  assert.equal((await partitionFacts(page, 'orders-0')).leader, now, 'the Partitions tab agrees with the map');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a newcomer kills the active controller, presses Play, and watches the timeout and the election', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const old = await mapActive(page);
  assert.notEqual(old, null, 'the map shows the active controller');
  await pick(page, `Controller ${old}`);
  await page.getByRole('button', { name: `Kill controller ${old}` }).click();
  await watch(page, [/No active controller: the voters' fetch timeout runs out in \d/, /Election: controllers? \d+( and \d+)* asks? the other voters/]);
  const start = Date.now();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(
    (o) => {
      const node = document.querySelector('.cluster-map .map-node.controller.active');
      return node && !node.getAttribute('aria-label').endsWith(` ${o}`);
    },
    old,
    { timeout: 60_000, polling: 'raf' },
  );
  const elapsed = Date.now() - start;
  const [countdown, election] = await watched(page);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  assert.ok(elapsed <= 60_000, `a new active controller showed after ${elapsed} ms`);
  assert.ok(countdown.shown >= 1_000, `the voters' countdown was on screen ${Math.round(countdown.shown)} ms`);
  assert.ok(election.shown >= 1_000, `the election was on screen ${Math.round(election.shown)} ms`);
  assert.ok(countdown.first < election.first);
  assert.notEqual(await mapActive(page), old);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Produce, then Step: every Step moves the learner\'s record or what it waits on', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await page.getByLabel('Key').fill('user-7');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  const produced = page.getByRole('region', { name: 'Produced records' });
  const told = page.getByRole('region', { name: 'What just happened' }).locator('ul.told:not(.background)');
  const clock = page.locator('.clock');
  let steps = 0;
  let sawFollower = false;
  while (!/partition \d+, offset \d+/.test(await produced.textContent())) {
    const before = await clock.textContent();
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.waitForFunction((c) => document.querySelector('.clock').textContent !== c, before);
    steps += 1;
    assert.ok(steps <= 80, 'the produce is answered within 80 Steps');
    const text = await told.textContent();
    // The learner's own requests (the metadata they need, the produce) or
    // a follower's fetch, which carries the record and reports it back.
    assert.match(text, /client-0\b|broker-\d+#\d+|high watermark|appended/, `step ${steps} told: ${text}`);
    assert.doesNotMatch(text, /BrokerHeartbeat|__cluster_metadata|BeginQuorumEpoch|\bVote\b/, `step ${steps} told background: ${text}`);
    sawFollower ||= /broker-\d+#\d+/.test(text);
  }
  assert.ok(sawFollower, 'the follower fetches an acks=all produce waits on were stepped too');
  // Everything else still ran, drawn faintly: Focus Everything shows it.
  await page.getByLabel('Focus').selectOption({ label: 'Everything' });
  const at = Number((await page.locator('.timeline-value').textContent()).split(' / ')[0]);
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForFunction((a) => Number(document.querySelector('.timeline-value').textContent.split(' / ')[0]) === a + 1, at);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the cluster picture and the picked broker\'s insides lie in the first screen', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  // With a produce waiting in purgatory, so the line over the picture is at
  // its longest.
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 40 && !/purgatory/.test(await page.locator('.situations').textContent()); i++) {
    await page.getByRole('button', { name: 'Step', exact: true }).click();
  }
  assert.match(await page.locator('.situations').textContent(), /waits in broker \d's purgatory/);
  for (const [width, height] of [[1280, 720], [1440, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    for (const lang of ['en', 'ko']) {
      if ((await page.locator(`.app[lang="${lang}"]`).count()) === 0) {
        await page.getByRole('button', { name: 'Language' }).click();
        await page.locator(`.app[lang="${lang}"]`).waitFor();
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      const floor = await page.locator('.transport').evaluate((el) => el.getBoundingClientRect().top);
      for (const [name, selector] of [['cluster picture', '.cluster-map svg'], ['broker pipeline', 'svg.pipeline']]) {
        const box = await page.locator(selector).first().boundingBox();
        assert.ok(box.y >= 0 && box.x >= 0 && box.x + box.width <= width + 1, `${width}×${height} ${lang}: ${name} at ${JSON.stringify(box)}`);
        assert.ok(box.y + box.height <= floor + 1, `${width}×${height} ${lang}: ${name} ends at ${box.y + box.height}, the transport bar starts at ${floor}`);
      }
      if (width > 720) {
        // Beside it, the narration and the actions, also in the first screen.
        const narration = await page.getByRole('region', { name: 'What just happened' }).boundingBox();
        assert.ok(narration.y < floor, `${width}×${height} ${lang}: the narration starts in view`);
        assert.ok((await page.getByRole('button', { name: 'Produce', exact: true }).boundingBox()).y + 30 < floor);
      }
    }
  }
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="en"]').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('the first hint shows until it is used, and stays gone', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await page.evaluate(() => localStorage.removeItem('kafkascope.hint-used'));
  await page.reload();
  const hint = page.getByText('Produce a record, then Step; or kill a broker and press Play.');
  await hint.waitFor();
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await hint.waitFor({ state: 'detached' });
  await page.reload();
  await page.getByRole('button', { name: 'Step', exact: true }).waitFor();
  assert.equal(await hint.count(), 0, 'remembered across a reload');
  assert.deepEqual(problems, []);
  await page.close();
});

test('no Rust syntax reaches the page, in English or Korean, through a failover and a produce', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  const rust = /[{}]|Some\(|None\b|::|\b(Ok|Err)\(|\[\d/;
  const check = async (when) => {
    for (const selector of ['.stage', '.side', '.details-panel', '.transport']) {
      const text = await page.locator(selector).textContent();
      const hit = rust.exec(text);
      assert.equal(hit, null, `${when}, ${selector}: ${hit && text.slice(Math.max(0, hit.index - 80), hit.index + 80)}`);
    }
  };
  await page.getByRole('button', { name: 'Produce', exact: true }).click();
  for (let i = 0; i < 10; i++) await page.getByRole('button', { name: 'Step', exact: true }).click();
  await check('after a produce');
  await pick(page, 'Broker 1');
  await page.getByRole('button', { name: 'Kill broker 1' }).click();
  for (let i = 0; i < 12; i++) {
    await page.getByRole('button', { name: 'Next controller event' }).click();
    await check(`after controller event ${i}`);
  }
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="ko"]').waitFor();
  for (const tab of ['Partitions', 'Quorum', 'Alarms', 'Segments']) {
    await openTab(page, tab);
    await check(`in Korean, ${tab}`);
  }
  await page.getByRole('button', { name: 'Language' }).click();
  await page.locator('.app[lang="en"]').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});
