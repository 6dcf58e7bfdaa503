// A CPU profile of the explorer while playing (a diagnostic, not a test):
//   SPEED=8 [WARM_S=90] node tests/e2e/profile-frames.mjs [seconds] [out.cpuprofile]
// Sets up the large cluster like bench-frames.mjs, plays at the
// speed notch SPEED (8 is the top, 100×), and prints the main
// thread's time by Chrome trace event (script, style, layout, paint), then
// the functions with the most self and the most inclusive time. The release
// build drops wasm function names; for named frames, rebuild dist/'s .wasm
// with `wasm-bindgen --keep-debug` and `wasm-opt -Oz -g` from
// target/wasm32-unknown-unknown/release/kafkascope.wasm and drop the
// integrity attributes from dist/index.html (docs/BENCHMARKS.md).
import { writeFile } from 'node:fs/promises';
import { serveDist, launch, openApp, setUpLargeCluster } from './harness.mjs';

const seconds = Number(process.argv[2] ?? 4);
const out = process.argv[3];
const server = await serveDist();
const context = await launch();
try {
  const { page } = await openApp(context, server.url);
  await setUpLargeCluster(page);
  // As bench-frames.mjs does: play until the five records are answered, so
  // the profile is of the cluster running, not of Play holding their hops.
  await page.getByRole('slider', { name: 'Speed' }).fill('8');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(
    () => (document.querySelector('[aria-label="Produced records"]')?.textContent.match(/offset \d+/g) ?? []).length === 5,
    null,
    { timeout: 120_000 },
  );
  // WARM_S: keep playing until the clock shows that many simulated
  // seconds, to profile a run that has grown.
  if (process.env.WARM_S) {
    await page.waitForFunction(
      (s) => Number(/(\d+)\.\d+/.exec(document.querySelector('.clock strong')?.textContent ?? '')?.[1] ?? 0) >= s,
      Number(process.env.WARM_S),
      { timeout: 600_000 },
    );
  }
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.getByRole('slider', { name: 'Speed' }).fill(process.env.SPEED ?? '8');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await cdp.send('Profiler.start');
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const traced = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,toplevel,__metadata', transferMode: 'ReportEvents' });
  await page.waitForFunction((ms) => new Promise((r) => setTimeout(() => r(true), ms)), seconds * 1000);
  await cdp.send('Tracing.end');
  await traced;
  const { profile } = await cdp.send('Profiler.stop');
  // The renderer main thread's time by trace event name (complete events).
  // The page's main thread: the busiest renderer main thread.
  const mains = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const timeByName = (m) => {
    const byName = new Map();
    for (const e of events) {
      if (e.ph !== 'X' || e.tid !== m.tid || e.pid !== m.pid) continue;
      byName.set(e.name, (byName.get(e.name) ?? 0) + (e.tdur ?? e.dur ?? 0));
    }
    return byName;
  };
  const byName = mains.map(timeByName).sort((a, b) => (b.get('ThreadControllerImpl::RunTask') ?? 0) - (a.get('ThreadControllerImpl::RunTask') ?? 0))[0] ?? new Map();
  console.log('main thread, CPU time by trace event (inclusive):');
  for (const [name, us] of [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}`);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  if (out) await writeFile(out, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => `${(n.callFrame.functionName || '(anon)').replace(/::h[0-9a-f]{16}$/, '')} ${n.callFrame.url.split('/').pop()}`;
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    self.set(name(byId.get(id)), (self.get(name(byId.get(id))) ?? 0) + dt);
    // Each function once per sample, however deep it recurses.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) seen.add(name(byId.get(cur)));
    for (const f of seen) inclusive.set(f, (inclusive.get(f) ?? 0) + dt);
  });
  const print = (title, map) => {
    console.log(title);
    for (const [f, us] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
      console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${f.slice(0, 150)}`);
    }
  };
  print('self time:', self);
  print('inclusive time:', inclusive);
} finally {
  await context.close();
  await server.close();
}
