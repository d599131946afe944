// npm run bench: wall time, CPU time and peak memory of suite runs, measured from outside, medians printed.
// Modes: replay (the recorded fixtures), live (against the reference server), upload (only the test that sends
// five files of 5,000,000 bytes, live: its worker holds both the client and the reference server).
// floor: Playwright running two trivial tests (scripts/floor), the machine's own floor; replay is also given as a
// multiple of it, measured in the same bench.
// Usage: npm run bench [-- --runs N] [-- --modes floor,replay,live,upload]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { PLAYWRIGHT_CLI } from './mutation.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const runs = Number(option('runs', '3'));
const modes = option('modes', 'floor,replay,live,upload').split(',');

const MODES: Record<string, { env: Record<string, string>; args: string[] }> = {
  floor: { env: {}, args: ['--config', 'scripts/floor/playwright.config.ts'] },
  replay: { env: { SUITE_MODE: 'replay', REFERENCE_SERVER: '0' }, args: [] },
  live: { env: { SUITE_MODE: 'live', REFERENCE_SERVER: '1' }, args: [] },
  upload: { env: { SUITE_MODE: 'live', REFERENCE_SERVER: '1' }, args: ['--grep', 'UPLOAD-SIZE-TOTAL'] },
};

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

function measure(mode: string): Promise<{ seconds: number; cpuSeconds: number; peakMb: number; largestMb: number; exit: number | null }> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const cpuBefore = childrenCpuSeconds();
    // The reporters a user gets (CI=1: a dot per test on the console), since they cost their share of a run.
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', ...MODES[mode].args], {
      env: { ...process.env, ...MODES[mode].env, CI: '1', REPORTS_DIR: `reports/bench-${mode}` },
      stdio: 'ignore',
    });
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

const medianWall: Record<string, number> = {};
for (const mode of modes) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await measure(mode));
  const failed = results.filter((r) => r.exit !== 0).length;
  medianWall[mode] = median(results.map((r) => r.seconds));
  console.log(
    `${mode.padEnd(7)} runs ${runs}: median wall ${median(results.map((r) => r.seconds)).toFixed(2)} s ` +
      `(${results.map((r) => r.seconds.toFixed(2)).join(', ')}), median CPU ${median(results.map((r) => r.cpuSeconds)).toFixed(1)} s, median peak RSS of the process tree ` +
      `${median(results.map((r) => r.peakMb)).toFixed(0)} MB, of its largest process ${median(results.map((r) => r.largestMb)).toFixed(0)} MB` +
      `${failed ? `, ${failed} runs exited non-zero` : ''}`,
  );
}
if (medianWall.floor !== undefined && medianWall.replay !== undefined) {
  console.log(`replay / floor: ${(medianWall.replay / medianWall.floor).toFixed(2)} (target at most 2.5)`);
}
