// npm run bench: wall time, CPU time and peak memory of suite runs, measured from outside, medians printed.
// Modes: replay (the recorded fixtures), live (against the in-process reference server, one per worker, unpaced),
// paced (the whole suite against one reference server with a test clock, as a user's live run: RATE_LIMIT=50, the
// preflight, the model's sequences), upload (only the test that sends five files of 5,000,000 bytes, live: its worker
// holds both the client and the reference server).
// floor: Playwright running as many trivial tests as replay runs (scripts/floor), the machine's own floor; replay's
// CPU is also given as a multiple of it, measured in the same bench.
// Usage: npm run bench [-- --runs N] [-- --modes floor,replay,live,paced,upload]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenReference } from '../reference/listen.ts';
import { SERVER_VARIABLES } from '../reference/config.ts';
import { TEST_CLOCK_PATH } from '../reference/plugins/test-clock.ts';
import { loadSeed, worldOf } from '../reference/world.ts';
import { atAddress, childEnvironment, environmentOf } from '../src/config/config.ts';
import { PLAYWRIGHT_CLI } from './mutation.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const runs = Number(option('runs', '3'));
const modes = option('modes', 'floor,replay,live,paced,upload').split(',');
/** The pace of a user's live run, the figure the budget of a whole live run is given at. */
const PACED_RATE_LIMIT = '50';

const REPLAY = { SUITE_MODE: 'replay', REFERENCE_SERVER: '0' };
const LIVE = { SUITE_MODE: 'live', REFERENCE_SERVER: '1' };
/** Each mode's environment and arguments, made when it runs (a paced run's server is its own). */
const MODES: Record<string, () => Promise<{ env: Record<string, string>; args: string[] }>> = {
  // As many trivial tests as replay runs (scripts/floor reads how many): Playwright's own cost per test is the floor's too.
  floor: async () => {
    mkdirSync('reports/bench-floor', { recursive: true });
    writeFileSync('reports/bench-floor/tests.json', JSON.stringify({ tests: testsOf(REPLAY) }));
    return { env: {}, args: ['--config', 'scripts/floor/playwright.config.ts'] };
  },
  replay: async () => ({ env: REPLAY, args: [] }),
  live: async () => ({ env: LIVE, args: [] }),
  paced: async () => ({ env: await pacedTarget(), args: [] }),
  upload: async () => ({ env: LIVE, args: ['--grep', 'UPLOAD-SIZE-TOTAL'] }),
};

/** How many tests a run of the suite with `env` holds, as Playwright lists them. */
function testsOf(env: Record<string, string>): number {
  const listed = execFileSync(process.execPath, [PLAYWRIGHT_CLI, 'test', '--list'], { env: childEnvironment(env, SERVER_VARIABLES), encoding: 'utf8' });
  const total = /Total: (\d+) tests?/.exec(listed)?.[1];
  if (total === undefined) throw new Error(`playwright test --list named no total:\n${listed.slice(-500)}`);
  return Number(total);
}

/**
 * A reference server of its own for each paced run, listening in this process (its CPU is not the suite's), with a
 * test clock, and the variables that point the suite at it, as `npm run serve` prints them; a fresh state directory.
 */
async function pacedTarget(): Promise<Record<string, string>> {
  const server = await listenReference({ testClock: true, seedData: loadSeed() }, { host: '127.0.0.1', port: 0 });
  // What a run costs the server: every request it answered, and those of them to the test clock.
  const served = { requests: 0, clock: 0 };
  server.app.server.on('request', (request: { url?: string }) => {
    served.requests += 1;
    if (request.url?.startsWith(TEST_CLOCK_PATH)) served.clock += 1;
  });
  servers.push({ close: () => server.close(), served });
  const state = mkdtempSync(join(tmpdir(), 'bench-state-'));
  return { ...Object.fromEntries(environmentOf(atAddress(worldOf(loadSeed()), server.address, TEST_CLOCK_PATH))), RATE_LIMIT: PACED_RATE_LIMIT, STATE_DIR: state };
}
const servers: { close(): Promise<void>; served: { requests: number; clock: number } }[] = [];

/** Resident memory of a process and all its descendants, and of the largest of them, in bytes, from /proc. */
function treeRss(root: number): { total: number; largest: number } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const parent = Number(fields[1]);
      rss.set(pid, Number(fields[21]) * 4096);
      children.set(parent, [...(children.get(parent) ?? []), pid]);
    } catch {
      // The process ended while it was being read.
    }
  }
  const tree: number[] = [];
  const walk = (pid: number): void => {
    tree.push(rss.get(pid) ?? 0);
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return { total: tree.reduce((a, b) => a + b, 0), largest: Math.max(...tree) };
}

/**
 * CPU seconds (user and system) of this process's children that have ended and been waited for, from /proc: a run's
 * whole tree, since Playwright waits for its workers.
 */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of stat(5), cutime and cstime, in clock ticks (100 per second on Linux).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function measure(mode: string): Promise<{ seconds: number; cpuSeconds: number; peakMb: number; largestMb: number; exit: number | null }> {
  const run = await MODES[mode]();
  // Nothing of the developer's shell or of a reference server's settings takes part: only the mode's own.
  const env = childEnvironment({ ...run.env, CI: '1', REPORTS_DIR: `reports/bench-${mode}` }, SERVER_VARIABLES);
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const cpuBefore = childrenCpuSeconds();
    // The reporters a user gets (CI=1: a dot per test on the console), since they cost their share of a run.
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', ...run.args], { env, stdio: 'ignore' });
    let peak = 0;
    let largest = 0;
    const timer = setInterval(() => {
      const sample = treeRss(child.pid as number);
      peak = Math.max(peak, sample.total);
      largest = Math.max(largest, sample.largest);
    }, 20);
    child.on('exit', (exit) => {
      clearInterval(timer);
      resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuSeconds: childrenCpuSeconds() - cpuBefore, peakMb: peak / 2 ** 20, largestMb: largest / 2 ** 20, exit });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const medianCpu: Record<string, number> = {};
for (const mode of modes) {
  const results = [];
  const served: string[] = [];
  for (let i = 0; i < runs; i++) {
    results.push(await measure(mode));
    served.push(...servers.map((server) => `${server.served.requests} (${server.served.clock} to the test clock)`));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  }
  const failed = results.filter((r) => r.exit !== 0).length;
  medianCpu[mode] = median(results.map((r) => r.cpuSeconds));
  console.log(
    `${mode.padEnd(7)} runs ${runs}: median wall ${median(results.map((r) => r.seconds)).toFixed(2)} s ` +
      `(${results.map((r) => r.seconds.toFixed(2)).join(', ')}), median CPU ${median(results.map((r) => r.cpuSeconds)).toFixed(1)} s, median peak RSS of the process tree ` +
      `${median(results.map((r) => r.peakMb)).toFixed(0)} MB, of its largest process ${median(results.map((r) => r.largestMb)).toFixed(0)} MB` +
      `${served.length > 0 ? `; requests served: ${served.join(', ')}` : ''}${failed ? `, ${failed} runs exited non-zero` : ''}`,
  );
}
if (medianCpu.floor !== undefined && medianCpu.replay !== undefined) {
  console.log(`replay / floor, CPU: ${(medianCpu.replay / medianCpu.floor).toFixed(2)} (target at most 2)`);
}
