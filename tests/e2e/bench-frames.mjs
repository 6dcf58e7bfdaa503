// Frame times of the explorer (a benchmark, not a test):
//   node tests/e2e/bench-frames.mjs [seconds]
// Serves dist/ (build it first with `trunk build --release`), sets up the
// issue's large cluster (9 brokers, 3 controllers, 3 topics of 12 partitions
// at replication factor 3) through the Setup form, produces a few records,
// then plays at several speeds while the page records the interval between
// animation frames. Prints p50, p95 and the worst frame for each speed.
import { serveDist, launch, openApp, openSetup } from './harness.mjs';

const seconds = Number(process.argv[2] ?? 6);
const server = await serveDist();
const context = await launch();
try {
  const { page, problems } = await openApp(context, server.url);
  if (process.env.REDUCED) await page.emulateMedia({ reducedMotion: 'reduce' });
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
  await page.getByRole('region', { name: 'Broker 8' }).waitFor();
  for (let i = 0; i < 5; i++) await page.getByRole('button', { name: 'Produce', exact: true }).click();

  const speed = page.getByRole('slider', { name: 'Speed' });
  const rows = [];
  for (const [index, label] of [[4, '10 steps/s'], [8, '100 steps/s'], [12, '1000 steps/s']]) {
    await speed.fill(String(index));
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    const frames = await page.evaluate(
      (ms) =>
        new Promise((resolve) => {
          const times = [];
          const start = performance.now();
          const frame = (now) => {
            times.push(now);
            if (now - start < ms) requestAnimationFrame(frame);
            else resolve(times.slice(1).map((t, i) => t - times[i]));
          };
          requestAnimationFrame(frame);
        }),
      seconds * 1000,
    );
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    frames.sort((a, b) => a - b);
    const at = (q) => frames[Math.min(frames.length - 1, Math.floor(q * frames.length))];
    const step = /step (\d+)/.exec(await page.locator('.clock').textContent())[1];
    rows.push({ speed: label, frames: frames.length, p50: at(0.5).toFixed(1), p95: at(0.95).toFixed(1), worst: frames.at(-1).toFixed(1), step });
  }
  console.table(rows);
  if (problems.length) console.log('problems:', problems);
} finally {
  await context.close();
  await server.close();
}
