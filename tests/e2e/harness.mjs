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

// Everything that shows the simulation's state, as text: two pages showing
// the same session give the same string.
export async function shownState(page) {
  const parts = [];
  for (const selector of ['.clock', '.timeline-value', '.narration', '.partitions-overview', '.cluster', '.produced', '.consumed']) {
    parts.push(await page.locator(selector).innerText());
  }
  return parts.join('\n');
}

export function stepButton(page) {
  return page.getByRole('button', { name: 'Step', exact: true });
}

// Opens the Setup panel if it is closed.
export async function openSetup(page) {
  const toggle = page.getByRole('button', { name: 'Setup', exact: true });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.getByRole('button', { name: 'Apply setup' }).waitFor();
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
