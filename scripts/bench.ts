// npm run bench: wall time and peak memory of whole suite runs, measured from outside, medians printed.
// Usage: npm run bench [-- --runs N] [-- --modes replay,live]
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const runs = Number(option('runs', '3'));
const modes = option('modes', 'replay,live').split(',');

const ENV: Record<string, Record<string, string>> = {
  replay: { SUITE_MODE: 'replay', REFERENCE_SERVER: '0' },
  live: { SUITE_MODE: 'live', REFERENCE_SERVER: '1' },
};

/** Resident memory of a process and all its descendants, in bytes, from /proc. */
function treeRss(root: number): number {
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
  const walk = (pid: number): number => (rss.get(pid) ?? 0) + (children.get(pid) ?? []).reduce((sum, child) => sum + walk(child), 0);
  return walk(root);
}

function measure(mode: string): Promise<{ seconds: number; peakMb: number; exit: number | null }> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn('npx', ['playwright', 'test', '--reporter=dot'], {
      env: { ...process.env, ...ENV[mode], REPORTS_DIR: `reports/bench-${mode}` },
      stdio: 'ignore',
    });
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, treeRss(child.pid as number));
    }, 50);
    child.on('exit', (exit) => {
      clearInterval(timer);
      resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, peakMb: peak / 2 ** 20, exit });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const mode of modes) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await measure(mode));
  const failed = results.filter((r) => r.exit !== 0).length;
  console.log(
    `${mode.padEnd(7)} runs ${runs}: median wall ${median(results.map((r) => r.seconds)).toFixed(2)} s ` +
      `(${results.map((r) => r.seconds.toFixed(2)).join(', ')}), median peak RSS of the process tree ` +
      `${median(results.map((r) => r.peakMb)).toFixed(0)} MB${failed ? `, ${failed} runs exited non-zero` : ''}`,
  );
}
