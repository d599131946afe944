// The verdict follows the server's clock as it behaves (issue 28): a test clock that runs on once set, one that
// keeps whole seconds, one skewed weeks ahead, as well as a frozen one. The rules with an edge (the public hour) are
// run against the reference listening as a live target at a tight pace, so that the pace would fall between a move
// of the clock and its read if the suite let it: each must pass, and each must still catch a window 5 s too long.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { listenReference } from '../../reference/listen.ts';
import { TEST_CLOCK_PATH } from '../../reference/plugins/test-clock.ts';
import { loadSeed, worldOf } from '../../reference/world.ts';
import { CLOCK_HABITS } from '../../reference/clock.ts';
import { SERVER_VARIABLES } from '../../reference/config.ts';
import { atAddress, childEnvironment, environmentOf } from '../config/config.ts';
import type { ConformanceReport } from '../report/conformance-reporter.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
const work = mkdtempSync(join(tmpdir(), 'clock-habits-'));
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * The verdict of `rule` from a live run of its tests (`grep`, of `spec`) against a reference of this clock habit and
 * fault, its test clock starting at `start` (this machine's now by default).
 */
async function verdict(habit: string, rule: string, grep: string, rateLimit: number, fault?: string, { spec = 'specs/secure-lifecycle.clock.spec.ts', start = Date.now() } = {}): Promise<string> {
  const server = await listenReference({ testClock: { start }, style: `default+clock=${habit}`, fault: fault as never }, { host: '127.0.0.1', port: 0 });
  try {
    const reports = join(work, `${habit}-${rule}-${fault ?? 'none'}`);
    const target = Object.fromEntries(environmentOf(atAddress(worldOf(loadSeed()), server.address, TEST_CLOCK_PATH)));
    const env = childEnvironment({ ...target, REPORTS_DIR: reports, RATE_LIMIT: String(rateLimit), SKIP_PREFLIGHT: '1', CI: '1' }, SERVER_VARIABLES);
    // Not spawnSync: the server answers from this process, whose event loop must keep running.
    const status = await promisify(execFile)(process.execPath, [PLAYWRIGHT, 'test', spec, '-g', grep], { cwd: ROOT, env }).then(
      () => 0,
      (error: { code?: number }) => error.code ?? 1,
    );
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
    const { verdict, detail } = report.rules.find((judged) => judged.id === rule) ?? assert.fail(`${rule} is not in the report`);
    return `${verdict}${verdict === 'passed' ? '' : `: ${detail}`} (exit ${status})`;
  } finally {
    await server.close();
  }
}

// The frozen clock is every other test's; a skewed one differs from it only in where it starts, which every test sets.
for (const habit of CLOCK_HABITS.filter((habit) => habit === 'running' || habit === 'whole-second')) {
  test(`a test clock ${habit}: the public hour is judged at its edges, and a window 5 s too long is caught`, { timeout: 180_000 }, async () => {
    // Six requests per 10 s: the pace holds back nearly every request, but never a read behind the move it is for.
    assert.equal(await verdict(habit, 'SECURE-PUBLIC-WINDOW', 'a secure URL serves anonymously', 6), 'passed (exit 0)');
    assert.equal(await verdict(habit, 'SECURE-PRIVATE-AFTER', 'just after the hour', 1000), 'passed (exit 0)');
    assert.match(await verdict(habit, 'SECURE-PRIVATE-AFTER', 'just after the hour', 1000, 'secure-window-5-seconds-long'), /^failed: .*\(exit 1\)$/s);
  });
}

// A machine's clock weeks past the change (the reference's test clock starts at this machine's now): the model starts
// its sequences before the change all the same, where a non-secure upload's name can still be taken again.
test('a test clock weeks past the change: the model still finds a fault of non-secure files', { timeout: 180_000 }, async () => {
  const weeksPast = { spec: 'specs/model.spec.ts', start: Date.parse('2026-12-21T09:00:00Z') };
  const grep = 'every URL serves its own file';
  assert.equal(await verdict('frozen', 'PERMANENT-URL-ANONYMOUS', grep, 1000, undefined, weeksPast), 'passed (exit 0)');
  assert.match(await verdict('frozen', 'PERMANENT-URL-ANONYMOUS', grep, 1000, 'upload-name-overwrites', weeksPast), /^failed: .*\(exit 1\)$/s);
});
