// The vertical slice, driven as a learner would: Produce, then Step until the
// response arrives, reading the assigned offset from the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openApp } from './harness.mjs';

let server;
let context;

before(async () => {
  server = await serveDist();
  context = await launch();
});

after(async () => {
  await context?.close();
  await server?.close();
});

test('a produce steps hop by hop through the broker until its offset is shown', async () => {
  const { page, problems } = await openApp(context, server.url);
  const broker = page.getByRole('region', { name: 'Broker 0' });
  await broker.waitFor();
  await page.getByLabel('Key').fill('user-7');
  await page.getByLabel('Value').fill('first');
  await page.getByLabel('Acks').selectOption('1');
  await page.getByRole('button', { name: 'Produce', exact: true }).click();

  const step = page.getByRole('button', { name: 'Step', exact: true });
  const stagesSeen = new Set();
  const produced = page.getByRole('region', { name: 'Produced records' });
  for (let i = 0; i < 40 && !(await produced.textContent()).includes('offset 0'); i++) {
    await step.click();
    // Which stage boxes hold a token now: the request must visibly move.
    for (const stage of await broker.locator('.stage.busy').all()) {
      stagesSeen.add(await stage.getAttribute('aria-label'));
    }
  }
  const text = await produced.textContent();
  assert.match(text, /partition 0, offset 0/);
  for (const expected of ['Socket receive buffer', 'Network thread 0', 'Request queue (1/16)', 'I/O thread 0', 'Log append', 'Response queue 0', 'Socket send buffer']) {
    assert.ok(stagesSeen.has(expected), `the request was seen in ${expected}; saw ${[...stagesSeen].join(', ')}`);
  }
  await assert.doesNotReject(broker.getByText('0: user-7 = first').waitFor());
  assert.deepEqual(problems, []);
  await page.close();
});

test('a second record gets the next offset, and the narration explains each step', async () => {
  const { page, problems } = await openApp(context, server.url);
  const produceButton = page.getByRole('button', { name: 'Produce', exact: true });
  const step = page.getByRole('button', { name: 'Step', exact: true });
  const produced = page.getByRole('region', { name: 'Produced records' });
  await produceButton.click();
  await produceButton.click();
  for (let i = 0; i < 80 && !(await produced.textContent()).includes('offset 1'); i++) {
    await step.click();
  }
  assert.match(await produced.textContent(), /offset 0/);
  assert.match(await produced.textContent(), /offset 1/);
  const narration = page.getByRole('region', { name: 'What just happened' });
  assert.match(await narration.textContent(), /\w+/);
  assert.deepEqual(problems, []);
  await page.close();
});
