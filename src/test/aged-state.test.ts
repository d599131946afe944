// Clock rules judged across runs. The store (src/time/aged-state.ts) on its own: what it keeps, what it ignores with a
// warning, what it drops. Then the suite itself, run several times against a reference server whose test clock it is
// not told of (no TEST_CLOCK_URL, as against staging), the test moving that clock between the runs: the first run
// skips the clock rules and leaves its uploads in STATE_DIR, a later run judges those that have aged, and a server
// that keeps secure files public fails SECURE-PRIVATE-AFTER on them. Only the clock spec's tests of those rules run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { FaultName } from '../../reference/faults.ts';
import { listenReference, type Listening } from '../../reference/listen.ts';
import { TEST_CLOCK_PATH } from '../../reference/plugins/test-clock.ts';
import { loadSeed, worldOf } from '../../reference/world.ts';
import { boundariesCrossed, describeAge, KEEP_SECONDS, type StoredUpload, UploadState } from '../time/aged-state.ts';
import { atAddress, environmentOf, loadConfig, SETTINGS, type Target } from '../config/config.ts';
import type { ConformanceReport, RuleResult } from '../report/conformance-reporter.ts';
import { type RuleId, testsOfRule } from '../contract/rules.ts';
import { redactText } from '../config/redact.ts';
import { testFile } from '../files/test-file.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
const SPEC = 'specs/secure-lifecycle.clock.spec.ts';
const HOUR = 3600;
/** The tests of these rules over their domains (src/contract/domains.ts): judged at the server's now, or with a test clock only, never across runs. */
const PROPERTIES = /every later instant|whatever read it before/;

const work = mkdtempSync(join(tmpdir(), 'aged-state-'));
after(() => rmSync(work, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(work, `dir-${++dirs}`);

const world = worldOf(loadSeed());
const target = (baseUrl: string, locationId = world.locationId): Target => ({ ...world, locationId, baseUrl });
const noRedaction = (text: string) => text;
const NOW = Date.parse('2026-11-25T12:00:00Z');

describe('the store of uploads waiting for a later run', () => {
  const upload = { files: [testFile('a.pdf', 300), testFile('b.png', 700)], urls: ['https://api.example.test/files/d/slug-a', 'https://api.example.test/files/d/slug-b'] };
  const store = (dir: string, at = target('https://api.example.test'), title = 'SECURE-PRIVATE-AFTER a statement') =>
    new UploadState(dir, at, 'SECURE-PRIVATE-AFTER', title, (text) => redactText(text, ['tok-secret-123456']));
  const filesOf = (dir: string) => readdirSync(dir).sort();

  test('an upload kept is found again, its files rebuilt from name and size, aged by the server time given', () => {
    const dir = freshDir();
    store(dir).keep(upload, NOW, 'before');
    const { uploads, warnings } = store(dir).waiting(NOW + 5000_000);
    assert.deepEqual(warnings, []);
    assert.equal(uploads.length, 1);
    assert.deepEqual(uploads[0].files.map((file) => file.sha256), upload.files.map((file) => file.sha256));
    assert.deepEqual(uploads[0].urls, upload.urls);
    assert.equal(uploads[0].age, 5000);
    assert.equal(uploads[0].regime, 'before');
    const stored = JSON.parse(readFileSync(join(dir, filesOf(dir)[0]), 'utf8')) as StoredUpload;
    assert.deepEqual(stored.target, { origin: 'https://api.example.test', locationId: world.locationId });
    assert.deepEqual(Object.keys(stored.files[0]).sort(), ['name', 'sha256', 'size', 'url'], 'never the bytes');
  });

  test('uploads of one instant each get a file of their own, oldest first, and no partial file remains', () => {
    const dir = freshDir();
    for (const at of [NOW, NOW, NOW - 1000]) store(dir).keep(upload, at, 'before');
    assert.equal(filesOf(dir).length, 3);
    assert.ok(filesOf(dir).every((name) => name.startsWith('SECURE-PRIVATE-AFTER.') && name.endsWith('.json')), filesOf(dir).join(', '));
    assert.deepEqual(store(dir).waiting(NOW + 10_000).uploads.map((u) => u.age), [11, 10, 10]);
  });

  test('each test reads only its own uploads', () => {
    const dir = freshDir();
    store(dir).keep(upload, NOW, 'before');
    assert.deepEqual(store(dir, undefined, 'SECURE-PRIVATE-AFTER another statement').waiting(NOW), { uploads: [], warnings: [] });
  });

  test('a URL carrying a signature or a token is never stored', () => {
    const dir = freshDir();
    for (const url of ['https://cdn.example.test/f.pdf?Expires=1&Signature=abc', 'https://api.example.test/files/tok-secret-123456/f.pdf']) {
      assert.throws(() => store(dir).keep({ files: [testFile('f.pdf')], urls: [url] }, NOW, 'before'), /carries a signature or a token/);
    }
    assert.equal(existsSync(dir), false);
  });

  test('uploads older than a month are dropped unjudged', () => {
    const dir = freshDir();
    store(dir).keep(upload, NOW, 'before');
    assert.deepEqual(store(dir).waiting(NOW + (KEEP_SECONDS + 1) * 1000), { uploads: [], warnings: [] });
    assert.deepEqual(filesOf(dir), []);
  });

  test("a file of another target, a broken file and another program's file are left alone with a warning; an upload this suite can no longer rebuild is dropped", () => {
    const dir = freshDir();
    store(dir, target('https://other.example.test')).keep(upload, NOW, 'before');
    store(dir, target('https://api.example.test', 'loc-other')).keep(upload, NOW, 'before');
    const prefix = `${filesOf(dir)[0].split('.').slice(0, 2).join('.')}.`;
    writeFileSync(join(dir, `${prefix}broken.json`), '{"format": "conformance-aged-upload/1", "rule": ');
    writeFileSync(join(dir, `${prefix}foreign.json`), '{"hello": "world"}\n');
    const stored = JSON.parse(readFileSync(join(dir, filesOf(dir)[0]), 'utf8')) as StoredUpload;
    writeFileSync(join(dir, `${prefix}resized.json`), JSON.stringify({ ...stored, target: { origin: 'https://api.example.test', locationId: world.locationId }, files: [{ ...stored.files[0], size: 301 }] }));
    const before = filesOf(dir);
    const { uploads, warnings } = store(dir).waiting(NOW + 5000_000);
    assert.deepEqual(uploads, []);
    const expected = [
      /another target \(https:\/\/other\.example\.test/,
      /another target \(https:\/\/api\.example\.test, location loc-other/,
      /broken\.json is ignored: .*JSON/,
      /foreign\.json is ignored: not an upload of this suite/,
      /resized\.json is dropped: this suite no longer makes a\.pdf of 301 bytes as it was uploaded/,
    ];
    for (const pattern of expected) assert.ok(warnings.some((warning) => pattern.test(warning)), `${pattern} in:\n${warnings.join('\n')}`);
    assert.equal(warnings.length, expected.length);
    assert.deepEqual(filesOf(dir), before.filter((name) => !name.endsWith('resized.json')), 'nothing is deleted that is not ours');
  });

  test('a state directory that cannot be read is a warning, a missing one nothing', () => {
    assert.deepEqual(store(join(work, 'missing')).waiting(NOW), { uploads: [], warnings: [] });
    const file = join(work, 'not-a-dir');
    writeFileSync(file, '');
    const { uploads, warnings } = new UploadState(file, target('https://api.example.test'), 'SECURE-PRIVATE-AFTER', 't', noRedaction).waiting(NOW);
    assert.deepEqual(uploads, []);
    assert.match(warnings.join(), /could not be read/);
  });

  test('the boundaries an upload crossed since its last judgment: the change, the turn of a year, a day of age', () => {
    const at = (iso: string) => Date.parse(iso);
    const uploaded = at('2026-11-28T12:00:00Z');
    assert.deepEqual(boundariesCrossed(uploaded, at('2026-11-28T13:00:00Z'), at('2026-11-28T20:00:00Z')), []);
    assert.deepEqual(boundariesCrossed(uploaded, at('2026-11-28T13:00:00Z'), at('2026-12-01T13:00:00Z')), ['the change of 30 November 2026', 'a day of age']);
    assert.deepEqual(boundariesCrossed(at('2026-12-20T12:00:00Z'), at('2026-12-31T12:00:00Z'), at('2027-01-01T00:00:00Z')), ['the turn of the year 2027']);
  });

  test('ages read as a person reads them', () => {
    assert.deepEqual([47, 33 * 60, 2 * HOUR + 14 * 60, 3 * 24 * HOUR + 5 * HOUR + 59].map(describeAge), ['47 s', '33 min', '2 h 14 min', '3 d 5 h']);
  });
});

/** The tests of these rules make the uploads a later run judges. */
const AGED_RULES: RuleId[] = ['SECURE-PUBLIC-WINDOW', 'SECURE-PRIVATE-AFTER', 'SECURE-SIGNED-URL', 'SECURE-SCOPE-REQUIRED', 'SECURE-SIGNED-BOUND', 'SECURE-SIGNED-TAMPER', 'PERMANENT-URL-LASTS', 'CUTOVER-ALL-SECURE', 'CUTOVER-FLAG-IGNORED'];

interface Run {
  status: number | null;
  output: string;
  rules: Map<string, RuleResult>;
  /** JUnit XML: it carries every annotation of a test, the warnings among them. */
  junit: string;
}

/** A reference server started here, and runs of the suite against it; its test clock is ours alone. */
class Bench {
  private runs = 0;
  readonly stateDir = freshDir();
  private constructor(private server: Listening) {}

  static async start(start: string, fault?: FaultName): Promise<Bench> {
    return new Bench(await Bench.#listen(start, 0, fault));
  }

  static #listen(start: string, port: number, fault?: FaultName): Promise<Listening> {
    return listenReference({ seed: '1', testClock: { start: Date.parse(start) }, fault, seedData: loadSeed() }, { host: '127.0.0.1', port });
  }

  /** A server started afresh at the same address (the reference restarted, a staging environment re-seeded): it holds nothing of the last. */
  async restart(start: string): Promise<void> {
    const port = Number(new URL(this.server.address).port);
    await this.server.close();
    this.server = await Bench.#listen(start, port);
  }

  /**
   * The clock spec's tests of `rules`, live; with `testClock`, the suite is told of the test clock. Two workers, as
   * in CI, write the state at once; one costs less where that is not the point.
   */
  async run(rules: readonly RuleId[], { testClock = false, stateDir = this.stateDir, workers = 1, skipPreflight = false } = {}): Promise<Run> {
    const reports = join(work, `reports-${this.server.address.split(':').at(-1)}-${++this.runs}`);
    const env: Record<string, string> = {
      ...Object.fromEntries(environmentOf(atAddress(world, this.server.address, testClock ? TEST_CLOCK_PATH : undefined))),
      [SETTINGS.stateDir.env]: stateDir,
      [SETTINGS.reportsDir.env]: reports,
      // Not the platform: nothing to be polite to, and the runs stay short.
      [SETTINGS.rateLimit.env]: '100000',
      [SETTINGS.ci.env]: '1',
      ...(skipPreflight ? { [SETTINGS.skipPreflight.env]: '1' } : {}),
    };
    // The whole configuration at once: no variable of this process or .env file takes part.
    const config = JSON.stringify(loadConfig(env));
    const args = ['--grep', rules.map((id) => testsOfRule(id).source).join('|'), '--grep-invert', PROPERTIES.source, `--workers=${workers}`];
    const child = spawn(process.execPath, [PLAYWRIGHT, 'test', SPEC, ...args], {
      cwd: ROOT,
      env: { ...process.env, [SETTINGS.explicit.env]: config },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
    return { status, output, rules: new Map(report.rules.map((rule) => [rule.id, rule])), junit: readFileSync(join(reports, 'junit.xml'), 'utf8') };
  }

  async advance(seconds: number): Promise<void> {
    const answer = await fetch(`${this.server.address}${TEST_CLOCK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: seconds }) });
    assert.equal(answer.status, 200);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

const verdicts = (run: Run, rules: readonly string[]) => Object.fromEntries(rules.map((id) => [id, run.rules.get(id)?.verdict]));
const detail = (run: Run, id: string) => run.rules.get(id)?.detail ?? '';
const same = (rules: readonly string[], verdict: string) => Object.fromEntries(rules.map((id) => [id, verdict]));
/** Measured, for the record: how many of these MUST rules each run skipped. */
const skippedMust = (run: Run) => [...run.rules.values()].filter((rule) => (AGED_RULES as string[]).includes(rule.id) && rule.level === 'MUST' && rule.verdict === 'skipped').length;

// The two servers are independent: their runs overlap.
describe('clock rules judged across runs, against a server whose test clock the suite is not told of', { timeout: 300_000, concurrency: true }, () => {
  test('a later run judges the uploads an earlier run left once they have aged; the rest wait', async () => {
    // Before the change of 30 November 2026: CUTOVER-* cannot be judged at this date (the faulty run below judges them).
    const bench = await Bench.start('2026-11-25T12:00:00Z');
    try {
      const first = await bench.run(AGED_RULES, { workers: 2 });
      assert.equal(first.status, 0, first.output.slice(-3000));
      assert.deepEqual(verdicts(first, AGED_RULES), same(AGED_RULES, 'skipped'), 'nothing has aged yet');
      assert.match(detail(first, 'SECURE-PRIVATE-AFTER'), /^needs 3630 s to pass on the server: set TEST_CLOCK_URL, .*; this run's upload waits in .* for a later run to judge; no upload of an earlier run waits$/);
      // Beside the uploads, the preflight's canary (src/preflight/kept-state.ts).
      const kept = readdirSync(bench.stateDir).filter((name) => !name.startsWith('server.'));
      assert.deepEqual([...new Set(kept.map((name) => name.split('.')[0]))].sort(), AGED_RULES.filter((id) => !id.startsWith('CUTOVER-')).sort());
      const secrets = Object.values(world.tokens).filter((token): token is string => token !== undefined);
      for (const name of kept) {
        const text = readFileSync(join(bench.stateDir, name), 'utf8');
        assert.equal(redactText(text, secrets), text, `${name} holds no token and no signature`);
      }
      // Left in the state by others: another target's upload and a broken file, in the way of SECURE-PRIVATE-AFTER.
      const mine = kept.find((name) => name.startsWith('SECURE-PRIVATE-AFTER.')) as string;
      const prefix = mine.split('.').slice(0, 2).join('.');
      const stored = JSON.parse(readFileSync(join(bench.stateDir, mine), 'utf8')) as StoredUpload;
      const planted = [`${prefix}.0.other.json`, `${prefix}.1.broken.json`];
      writeFileSync(join(bench.stateDir, planted[0]), JSON.stringify({ ...stored, target: { ...stored.target, origin: 'https://other.example.test' } }));
      writeFileSync(join(bench.stateDir, planted[1]), '{"format": ');

      // Half an hour later: within the public hour of the first run's upload, short of the hour for the rest. One
      // worker from here: the first run's two wrote the state at once; each test reads and writes only its own files.
      await bench.advance(2000);
      const second = await bench.run(AGED_RULES);
      assert.equal(second.status, 0, second.output.slice(-3000));
      assert.equal(second.rules.get('SECURE-PUBLIC-WINDOW')?.verdict, 'passed');
      assert.match(detail(second, 'SECURE-PUBLIC-WINDOW'), /^judged on an upload made 3[34] min earlier by the server's clock/);
      const waiting = AGED_RULES.filter((id) => id !== 'SECURE-PUBLIC-WINDOW');
      assert.deepEqual(verdicts(second, waiting), same(waiting, 'skipped'));
      assert.match(detail(second, 'SECURE-PRIVATE-AFTER'), /the oldest upload an earlier run left is 3[34] min old, short of the 3630 s this check needs/);
      for (const pattern of [/other\.json is ignored: it belongs to another target \(https:\/\/other\.example\.test/, /broken\.json is ignored: .*JSON/]) {
        assert.match(second.junit, new RegExp(`<property name="warning" value="[^"]*${pattern.source}`));
      }

      // Past the hour of both earlier runs' uploads.
      await bench.advance(HOUR + 100);
      const third = await bench.run(AGED_RULES);
      assert.equal(third.status, 0, third.output.slice(-3000));
      const judged = AGED_RULES.filter((id) => !id.startsWith('CUTOVER-') && id !== 'SECURE-PUBLIC-WINDOW');
      assert.deepEqual(verdicts(third, judged), same(judged, 'passed'));
      for (const id of judged) assert.match(detail(third, id), /^judged on an upload made 1 h 3\d min earlier by the server's clock, left by an earlier run before the change of 30 November 2026; this run's upload waits in /, id);
      // The first run's upload, judged by the second, and the second's: both past the window now.
      assert.match(detail(third, 'SECURE-PUBLIC-WINDOW'), /2 left by earlier runs were past the 3570 s this check holds until, and were dropped/);
      for (const id of ['CUTOVER-ALL-SECURE', 'CUTOVER-FLAG-IGNORED']) assert.match(detail(third, id), /is before the change of 30 November 2026; this check needs after/);
      for (const name of planted) assert.ok(existsSync(join(bench.stateDir, name)), `${name} is left alone`);
      console.log(`skipped MUST rules of ${AGED_RULES.length} clock rules: ${[first, second, third].map(skippedMust).join(', ')} in runs 1 to 3`);

      // With a test clock nothing is left for later: every instant is reached in the run.
      const stateDir = freshDir();
      const withClock = await bench.run(['SECURE-SCOPE-REQUIRED'], { testClock: true, stateDir });
      assert.equal(withClock.rules.get('SECURE-SCOPE-REQUIRED')?.verdict, 'passed', withClock.output.slice(-3000));
      assert.deepEqual(readdirSync(stateDir).filter((name) => !name.startsWith('server.')), [], 'no upload is kept with a test clock: only the canary of the preflight');
    } finally {
      await bench.close();
    }
  });

  test('an upload judged once is judged again once it has crossed the change of 30 November 2026', async () => {
    // A server that stops serving the non-secure files uploaded before the change, at the change.
    const bench = await Bench.start('2026-11-28T12:00:00Z', 'permanent-lost-at-cutover');
    const rules: RuleId[] = ['PERMANENT-URL-LASTS'];
    try {
      const first = await bench.run(rules);
      assert.equal(first.rules.get('PERMANENT-URL-LASTS')?.verdict, 'skipped', first.output.slice(-3000));
      await bench.advance(HOUR + 100);
      const second = await bench.run(rules);
      assert.equal(second.rules.get('PERMANENT-URL-LASTS')?.verdict, 'passed', second.output.slice(-3000));
      assert.match(detail(second, 'PERMANENT-URL-LASTS'), /^judged on an upload made 1 h \d+ min earlier/);
      // Three days on: after the change, where this run makes no upload of its own, and past a day of age.
      await bench.advance(3 * 86_400);
      const third = await bench.run(rules);
      assert.equal(third.rules.get('PERMANENT-URL-LASTS')?.verdict, 'failed', third.output.slice(-3000));
      assert.match(third.output, /read again, across the change of 30 November 2026 and a day of age since a run judged it 3 d 0 h earlier, on an upload made 3 d 1 h earlier/);
    } finally {
      await bench.close();
    }
  });

  test('a server reset since the last run: what was kept of the one before is forgotten with one line, never a failure', async () => {
    const bench = await Bench.start('2026-11-25T12:00:00Z');
    const rules: RuleId[] = ['PERMANENT-URL-LASTS', 'SECURE-SIGNED-URL', 'SECURE-PRIVATE-AFTER'];
    try {
      const first = await bench.run(rules);
      assert.deepEqual(verdicts(first, rules), same(rules, 'skipped'), first.output.slice(-3000));
      const kept = readdirSync(bench.stateDir).filter((name) => rules.some((id) => name.startsWith(`${id}.`)));
      assert.equal(kept.length, rules.length);
      // Two hours later by its clock, a server started afresh at the same address; the run skips the preflight, as CI's shards do.
      await bench.restart('2026-11-25T14:00:00Z');
      const second = await bench.run(rules, { skipPreflight: true });
      assert.equal(second.status, 0, second.output.slice(-3000));
      assert.deepEqual(verdicts(second, rules), same(rules, 'skipped'), 'nothing kept of the server that is gone is judged');
      const named = second.output.match(/^ {2}STATE_DIR=.*$/gm) ?? [];
      assert.equal(named.length, 1, second.output.slice(-3000));
      assert.match(named[0], /the server holds none of what earlier runs kept of it \(.*answered 404.*\), while it gives this run's upload: either it was reset or replaced since; what was kept of the server that is gone is forgotten, never judged \(3 uploads of the clock rules\); to start afresh yourself after a reset: rm -rf .*; or the server breaks PERMANENT-URL-LASTS/);
      for (const id of rules) assert.match(detail(second, id), /no upload of an earlier run waits$/, id);
      for (const name of kept) assert.equal(existsSync(join(bench.stateDir, name)), false, `${name} is forgotten`);
      // This server's own uploads are judged by the next run: it still holds them.
      await bench.advance(HOUR + 100);
      const third = await bench.run(rules, { skipPreflight: true });
      assert.equal(third.status, 0, third.output.slice(-3000));
      assert.deepEqual(verdicts(third, rules), same(rules, 'passed'), third.output.slice(-3000));
      assert.doesNotMatch(third.output, /STATE_DIR=/);
    } finally {
      await bench.close();
    }
  });

  test('a server that keeps secure files public fails the rules judged on aged uploads', async () => {
    // After the change of 30 November 2026, so that the cutover rules are judged too: every upload is secure.
    const bench = await Bench.start('2026-12-01T12:00:00Z', 'secure-never-private');
    const rules: RuleId[] = ['SECURE-PRIVATE-AFTER', 'CUTOVER-ALL-SECURE', 'CUTOVER-FLAG-IGNORED'];
    try {
      const first = await bench.run(rules);
      assert.equal(first.status, 0, first.output.slice(-3000));
      assert.deepEqual(verdicts(first, rules), same(rules, 'skipped'));
      await bench.advance(HOUR + 100);
      const second = await bench.run(rules);
      assert.equal(second.status, 1, 'a MUST failure fails the run');
      assert.deepEqual(verdicts(second, rules), same(rules, 'failed'));
      assert.match(detail(second, 'SECURE-PRIVATE-AFTER'), /got the bytes of each file, on an upload made 1 h \d+ min earlier by the server's clock[\s\S]*"secure-after\.pdf": Array \[/);
    } finally {
      await bench.close();
    }
  });
});
