// Shared set-up for the end-to-end tests: a static server for the release
// build in dist/, and headless Debian Chromium driven by playwright-core.
// Tests wait on conditions (locators, text), never on fixed sleeps.
import { createServer } from 'node:http';
import { readFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export async function serveDist() {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    const file = normalize(join(DIST, path === '/' ? 'index.html' : path));
    if (!file.startsWith(DIST)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}

export async function launch() {
  const userDataDir = await mkdtemp(join(tmpdir(), 'kafkascope-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
    viewport: { width: 1280, height: 720 },
    // Tokens and messages jump instead of gliding, so a test reads where
    // they are, not where an animation happens to have them.
    reducedMotion: 'reduce',
  });
  return context;
}

// Opens the app and records every console error, uncaught exception and any
// request that tries to leave 127.0.0.1: the page must make none.
export async function openApp(context, baseUrl, query = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    problems.push(`request left the page: ${url.href}`);
    return route.abort();
  });
  await page.goto(baseUrl + query);
  await page.getByRole('button', { name: 'Step', exact: true }).waitFor();
  return { page, problems };
}

// The text of an element, one line per text node. Not innerText: the page
// skips rendering the parts that are off screen (content-visibility: auto),
// and innerText leaves out text that is not rendered.
export async function textOf(locator) {
  return locator.evaluate((element) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const lines = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data.trim();
      if (text) lines.push(text);
    }
    return lines.join('\n');
  });
}

// Everything that shows the simulation's state, as text: two pages showing
// the same session give the same string.
export async function shownState(page) {
  const parts = [];
  for (const selector of ['.clock', '.timeline-value', '.narration', '.stage', '.details-panel']) {
    parts.push(await textOf(page.locator(selector)));
  }
  return parts.join('\n');
}

export function stepButton(page) {
  return page.getByRole('button', { name: 'Step', exact: true });
}

// Opens a tab (of the action dock: Produce, Fetch, Setup, Share; of the
// details: Partitions, Quorum, Alarms, Segments) unless it is open.
export async function openTab(page, name) {
  const tab = page.getByRole('tab', { name, exact: true });
  if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
  await page.waitForFunction((n) => document.querySelector(`[role=tab][aria-label="${n}"]`)?.getAttribute('aria-selected') === 'true', name);
}

// Opens the Setup panel of the dock.
export async function openSetup(page) {
  await openTab(page, 'Setup');
  await page.getByRole('button', { name: 'Apply setup' }).waitFor();
}

// Picks a node on the cluster map ("Broker 1", "Controller 0"), so the stage
// shows its insides and its fault buttons.
export async function pick(page, node) {
  const button = page.getByRole('button', { name: node, exact: true });
  await button.click();
  await page.waitForFunction((n) => document.querySelector(`[role=button][aria-label="${n}"]`)?.getAttribute('aria-pressed') === 'true', node);
}

// A partition's leader and ISR as the Partitions tab shows them.
export async function partitionFacts(page, name) {
  await openTab(page, 'Partitions');
  const text = await page.getByRole('group', { name: `Partition ${name}` }).textContent();
  const leader = /Leader: (\d+|none)/.exec(text)[1];
  const isr = /ISR ([\d, ]+|none)/.exec(text)[1];
  return {
    leader: leader === 'none' ? null : Number(leader),
    isr: isr === 'none' ? [] : isr.split(',').map((x) => Number(x.trim())),
  };
}

// The active controller as the Quorum tab names it.
export async function activeController(page) {
  await openTab(page, 'Quorum');
  const text = await page.getByRole('region', { name: 'Controller quorum' }).getByText(/^Active controller: /).textContent();
  const m = /Active controller: (\d+|none)/.exec(text);
  return m[1] === 'none' ? null : Number(m[1]);
}

// Every token drawn inside a broker, with the stage it sits in: the stage
// whose drawn box holds the token's centre, as a learner sees it.
export async function tokensIn(region) {
  return region.evaluate((root) => {
    const places = [...root.querySelectorAll('svg.pipeline g.place')].map((g) => ({ name: g.getAttribute('aria-label'), box: g.querySelector('rect').getBoundingClientRect() }));
    return [...root.querySelectorAll('svg.pipeline g.tok')].map((t) => {
      const b = t.getBoundingClientRect();
      const [x, y] = [b.left + b.width / 2, b.top + b.height / 2];
      const place = places.find((p) => x >= p.box.left && x <= p.box.right && y >= p.box.top && y <= p.box.bottom);
      return { name: t.getAttribute('aria-label'), text: t.textContent, place: place?.name ?? null };
    });
  });
}

// One server and one browser for a test file: started before its first test,
// closed after its last. Read `.server` and `.context` inside the tests.
export function withBrowser() {
  const browser = {};
  before(async () => {
    browser.server = await serveDist();
    browser.context = await launch();
  });
  after(async () => {
    await browser.context?.close();
    await browser.server?.close();
  });
  return browser;
}

// The large cluster, set up through the Setup form as a learner
// would: 9 brokers, 3 controllers, 3 topics of 12 partitions at replication
// factor 3; then five records produced. For the frame-time benchmark and
// the profiler.
export async function setUpLargeCluster(page) {
  await openSetup(page);
  const setup = page.getByRole('region', { name: 'Setup' });
  await setup.getByLabel('Brokers', { exact: true }).fill('9');
  await setup.getByLabel('Controllers', { exact: true }).selectOption('3');
  for (let n = 1; n <= 3; n++) {
    if (n > 1) await setup.getByRole('button', { name: 'Add topic' }).click();
    await page.getByLabel(`Topic ${n} name`, { exact: true }).fill(`topic-${n}`);
    await page.getByLabel(`Topic ${n} partitions`, { exact: true }).fill('12');
    await page.getByLabel(`Topic ${n} replication factor`, { exact: true }).fill('3');
  }
  await setup.getByRole('button', { name: 'Apply setup' }).click();
  await page.getByRole('button', { name: 'Broker 8', exact: true }).waitFor();
  await openTab(page, 'Produce');
  for (let i = 0; i < 5; i++) await page.getByRole('button', { name: 'Produce', exact: true }).click();
}
