// The committed fixtures are exactly what `npm run record` writes, they stay small and free of secrets,
// and replaying them gives every rule the verdict of the live run they were recorded from. That live run is also
// the default style's baseline. That the alt style, which chooses differently wherever the contract is silent, gets the
// same verdict on every rule is npm run mutation's to prove: its alt baseline is judged against the default's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { API_VERSION } from '../contract/contract.ts';
import type { ConformanceReport } from '../report/conformance-reporter.ts';
import type { Recording } from '../client/recording.ts';
import { WRITTEN_WITHIN_MS, whenWritten } from '../report/when-written.ts';
import { loadSeed } from '../../reference/world.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'fixtures');
const work = mkdtempSync(join(tmpdir(), 'fixtures-test-'));

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .sort();
}

/** Runs an npm script with extra variables; the run's own output is kept for the failure message. */
function run(script: string, env: Record<string, string>): { status: number | null; output: string } {
  const result = spawnSync('npm', ['run', '--silent', script], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/**
 * The recording to judge: made here, or, with RECORDED_RUN, one made the same way (`FIXTURES_DIR=<dir>/fixtures
 * REPORTS_DIR=<dir>/reports npm run --silent record`, its output in <dir>/output.txt and exit status in <dir>/status),
 * waited for until its status is written: .ci/run records once, beside npm test, for this test and the proofs that
 * take the reference's verdicts from it.
 */
async function recording(): Promise<{ dir: string; status: number | null; output: string }> {
  const given = process.env.RECORDED_RUN;
  if (given) {
    const status = Number(await whenWritten(join(given, 'status'), `the recording RECORDED_RUN=${given} names`));
    return { dir: given, status, output: readFileSync(join(given, 'output.txt'), 'utf8') };
  }
  const dir = join(work, 'recorded');
  return { dir, ...run('record', { FIXTURES_DIR: join(dir, 'fixtures'), REPORTS_DIR: join(dir, 'reports') }) };
}

/** What an earlier run left in a reports folder. */
const STALE = [
  ['allure-results', '00000000-0000-4000-8000-000000000000-result.json'],
  ['blob', 'report-earlier.zip'],
] as const;

const verdicts = (file: string) =>
  Object.fromEntries((JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport).rules.map((rule) => [rule.id, rule.verdict]));

describe('recorded fixtures', () => {
  let recorded: { dir: string; status: number | null; output: string };
  let replayed: { status: number | null; output: string };
  before(async () => {
    // Replay the committed fixtures, then record into a folder of its own (or wait for the one given): both reports are
    // compared below.
    // An earlier run's Allure result and blob report in the replay's folder: the run must not keep them.
    for (const [folder, name] of STALE) {
      mkdirSync(join(work, 'replay', folder), { recursive: true });
      writeFileSync(join(work, 'replay', folder, name), '{}');
    }
    replayed = run('conformance', { SUITE_MODE: 'replay', REFERENCE_SERVER: '0', REPORTS_DIR: join(work, 'replay') });
    recorded = await recording();
  }, { timeout: WRITTEN_WITHIN_MS + 5 * 60_000 });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('the live run against the reference server passes with no MUST failure', () => {
    assert.equal(recorded.status, 0, recorded.output.slice(-3000));
  });

  test('re-recording gives byte-identical files', () => {
    const committed = files(FIXTURES).map((path) => relative(FIXTURES, path));
    const fresh = files(join(recorded.dir, 'fixtures')).map((path) => relative(join(recorded.dir, 'fixtures'), path));
    assert.deepEqual(fresh, committed, 'the set of fixture files differs: run npm run record and commit fixtures/');
    for (const name of committed) {
      assert.ok(readFileSync(join(FIXTURES, name)).equals(readFileSync(join(recorded.dir, 'fixtures', name))), `fixtures/${name} differs from a fresh recording`);
    }
  });

  test('replaying the fixtures passes and gives every rule the verdict of the recorded run', () => {
    assert.equal(replayed.status, 0, replayed.output.slice(-3000));
    assert.deepEqual(verdicts(join(work, 'replay', 'conformance.json')), verdicts(join(recorded.dir, 'reports', 'conformance.json')));
  });

  test("a run's reports are its own: Allure's results of an earlier run and an old blob report are gone", () => {
    const results = readdirSync(join(work, 'replay', 'allure-results')).filter((name) => name.endsWith('-result.json'));
    const counts = /Tests: (\d+) passed, (\d+) failed, (\d+) skipped/.exec(replayed.output)?.slice(1) ?? [];
    const ran = counts.reduce((sum, count) => sum + Number(count), 0);
    assert.ok(ran > 0, 'the replay names its number of tests');
    assert.equal(results.length, ran, 'one Allure result per test of this run');
    assert.deepEqual(STALE.filter(([folder, name]) => existsSync(join(work, 'replay', folder, name))), []);
  });

  test('the fixtures stay under 2 MB and hold no token or signature', () => {
    const all = files(FIXTURES);
    const size = all.reduce((sum, path) => sum + statSync(path).size, 0);
    assert.ok(size < 2 * 1024 * 1024, `fixtures/ holds ${size} bytes`);
    const tokens = loadSeed().tokens.map((token) => token.value);
    for (const path of all) {
      const text = readFileSync(path, 'utf8');
      for (const token of tokens) assert.ok(!text.includes(token), `${relative(ROOT, path)} holds a token`);
      assert.doesNotMatch(text, /signature=(?!REDACTED)/, `${relative(ROOT, path)} holds a signature`);
    }
  });

  test("every API request the suite sent carries Version, but where a VERSION test or the model's refused turn leaves it out on purpose", () => {
    const missing = files(FIXTURES)
      .filter((path) => !path.endsWith('target.json'))
      .map((path) => ({ path, recording: JSON.parse(readFileSync(path, 'utf8')) as Recording }))
      .filter(({ recording }) => !recording.test.startsWith('VERSION-'))
      .flatMap(({ path, recording }) => recording.interactions.map((i) => ({ path, request: i.request })))
      // Anonymous reads (no credential) and the test clock are not API requests; a refused turn of the model says in its message what it leaves out.
      .filter(({ request }) => request.headers.authorization !== undefined && request.headers.version !== API_VERSION)
      .filter(({ request }) => !String((request.body as { json?: { message?: unknown } } | undefined)?.json?.message ?? '').endsWith(', without the Version header'))
      .map(({ path, request }) => `${relative(ROOT, path)}: ${request.method} ${request.url}`);
    assert.deepEqual(missing, []);
  });
});
