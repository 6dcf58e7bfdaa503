// The load generator: a learner starts a steady stream of records from the
// Load tab, plays, and watches the records get written; bad settings say
// what was wrong and change nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, openApp, openTab, textOf } from './harness.mjs';

const browser = withBrowser();

// How many records the running load line says were sent, or -1 if none runs.
async function sentSoFar(page) {
  const line = page.locator('.load-running');
  if ((await line.count()) === 0) return -1;
  const m = (await line.first().locator('span').textContent()).match(/: (\d+) sent so far\./);
  return m ? Number(m[1]) : -1;
}

test('a load generator sends records at its rate while the page plays', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await openTab(page, 'Load');
  await page.getByLabel('Records per second').fill('50');
  await page.getByLabel('Keys', { exact: true }).selectOption('random');
  await page.getByLabel('Value bytes').fill('200');
  await page.getByRole('button', { name: 'Start load', exact: true }).click();
  const line = page.locator('.load-running');
  await line.waitFor();
  assert.match(await line.locator('span').textContent(), /^client-0 \(acks=all\) sends 50 records\/s to orders, random keys, 200-byte values: \d+ sent so far\.$/);

  // At the default speed, real time: the load's stream is not held record
  // by record, so 20 records take under a second to send.
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => /: ([2-9]\d|\d{3,}) sent so far\./.test(document.querySelector('.load-running span')?.textContent ?? ''), null, { timeout: 20_000 });
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  const sent = await sentSoFar(page);
  assert.ok(sent >= 20, `${sent} sent`);
  // Records written by the brokers show with their partition and offset.
  await page.waitForFunction(() => [...document.querySelectorAll('.produce-result')].some((li) => /partition \d, offset \d+/.test(li.textContent)));

  // Each log's offsets, two digits long by now, fit in the Logs box and
  // leave its bar alone.
  const overflow = await page.evaluate(() => {
    const out = [];
    for (const box of document.querySelectorAll('g.place[aria-label="Logs"]')) {
      const area = box.querySelector('rect').getBBox();
      for (const row of box.parentNode.querySelectorAll('.log-row')) {
        const text = row.querySelector('.offsets').getBBox();
        const bar = row.querySelector('.bar').getBBox();
        if (text.x < bar.x + bar.width || text.x + text.width > area.x + area.width) out.push(row.textContent);
      }
    }
    return out;
  });
  assert.ok((await page.locator('.log-row').count()) > 0);
  assert.deepEqual(overflow, []);

  // The timeline holds the load too: Step back shows fewer sent.
  for (let i = 0; i < 40 && (await sentSoFar(page)) >= sent; i++) {
    await page.getByRole('button', { name: 'Step back', exact: true }).click();
  }
  assert.ok((await sentSoFar(page)) < sent, 'stepping back goes back before the latest records');

  await page.getByRole('button', { name: 'Stop load of client-0', exact: true }).click();
  await line.waitFor({ state: 'detached' });
  assert.deepEqual(problems, []);
  await page.close();
});

// The cluster as the page shows it, without the narration, which holds
// the error message.
async function cluster(page) {
  const parts = [];
  for (const selector of ['.clock', '.timeline-value', '.stage']) parts.push(await textOf(page.locator(selector)));
  return parts.join('\n');
}

test('a load the producer cannot run is refused with the reason, in both languages', async () => {
  const { page, problems } = await openApp(browser.context, browser.server.url);
  await openTab(page, 'Load');
  const before = await cluster(page);
  await page.getByLabel('Records per second').fill('5000');
  await page.getByRole('button', { name: 'Start load', exact: true }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.equal(await alert.textContent(), 'A load generator sends 1 to 1000 records a second, not 5000.');
  assert.equal(await page.locator('.load-running').count(), 0);
  await page.getByLabel('Records per second').fill('');
  await page.getByRole('button', { name: 'Start load', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('[role=alert]')?.textContent.includes('whole numbers'));
  await page.getByRole('button', { name: 'Language', exact: true }).click();
  await openTab(page, 'Load');
  await page.getByLabel('Records per second').fill('0');
  await page.getByRole('button', { name: 'Start load', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('[role=alert]')?.textContent.startsWith('부하 생성기는 초당 레코드 1~1000개'));
  await page.getByRole('button', { name: 'Language', exact: true }).click();
  assert.equal(await cluster(page), before, 'nothing changed');
  assert.deepEqual(problems, []);
  await page.close();
});
