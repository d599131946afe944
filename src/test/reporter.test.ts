// ConformanceReporter driven directly with made-up test cases and results (only the fields it reads):
// verdicts per rule, the run's status, details, and the JSON file.
import type { FullConfig, FullResult, TestCase, TestResult } from '@playwright/test/reporter';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse as parseJunit } from 'junit2json';
import { ANNOTATION } from '../report/annotations.ts';
import { loadConfig, readEnvironment, type SuiteConfig } from '../config/config.ts';
import ConformanceReporter, { type ConformanceReport, type RuleResult } from '../report/conformance-reporter.ts';
import { annotatedContract, coverageLine, coverageOf } from '../contract/coverage.ts';
import { RULES } from '../contract/rules.ts';
import { contractPage } from '../report/contract-page.ts';

/** conformance.md beside conformance.json. */
const markdownOf = (jsonFile: string) => jsonFile.replace(/\.json$/, '.md');

const DIR = mkdtempSync(join(tmpdir(), 'suite-reporter-'));
after(() => rmSync(DIR, { recursive: true, force: true }));

/** The configuration the reporter describes the run with; the same on every machine. */
const configOf = (env: Record<string, string>) => loadConfig(readEnvironment(env, false).values);
const CONFIG = configOf({ SUITE_MODE: 'live', REFERENCE_SERVER: '1', SEED: '7', FAULT: 'upload-six-files', API_VERSION: 'v3' });

type Status = TestResult['status'];
type Annotation = { type: string; description?: string };

interface Run {
  rule?: string;
  status: Status;
  title?: string;
  error?: string;
  /** Annotations added while the test ran (observe(), test.skip(), the clock fixture, the transport). */
  notes?: Annotation[];
  /** The project the test ran in, with its `fault` option. */
  project?: { name: string; use: { fault?: string; style?: string } };
  /** The exchanges of its `evidence` attachment. */
  evidence?: { method: string; url: string; status?: number; requestHeaders?: Record<string, string> }[];
}

let runs = 0;
/** One test's end, as Playwright 1.5x reports it: test.annotations and result.annotations are the same list. */
function end(reporter: ConformanceReporter, run: Run): void {
  const annotations: Annotation[] = [...(run.rule ? [{ type: 'rule', description: run.rule }] : []), ...(run.notes ?? [])];
  const testCase = { id: `id-${++runs}`, title: run.title ?? `${run.rule ?? 'NO-RULE'} test ${runs}`, annotations, parent: { project: () => run.project } };
  const attachments = run.evidence ? [{ name: 'evidence', contentType: 'application/json', body: Buffer.from(JSON.stringify(run.evidence)) }] : [];
  const result = { status: run.status, annotations, attachments, errors: run.error === undefined ? [] : [{ message: run.error }] };
  reporter.onTestEnd(testCase as unknown as TestCase, result as unknown as TestResult);
}

let files = 0;
/** Ends the run; returns the status the reporter gives, the JSON it wrote and the matrix it printed. */
async function finish(reporter: ConformanceReporter, outputFile: string, status: FullResult['status'] = 'failed') {
  const write = process.stdout.write;
  let printed = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    printed += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  let returned: { status?: FullResult['status'] } | void;
  try {
    returned = await reporter.onEnd({ status, startTime: new Date(), duration: 1 } as FullResult);
  } finally {
    process.stdout.write = write;
  }
  const report = JSON.parse(readFileSync(outputFile, 'utf8')) as ConformanceReport;
  return { status: returned?.status, report, printed };
}

/** A reporter writing to a fresh file; `runAll` feeds it the runs and ends the run. */
async function report(list: Run[], status: FullResult['status'] = 'failed', config: SuiteConfig = CONFIG) {
  const outputFile = join(DIR, `run-${++files}`, 'nested', 'conformance.json');
  const reporter = new ConformanceReporter({ outputFile, config });
  for (const run of list) end(reporter, run);
  const done = await finish(reporter, outputFile, status);
  const rule = (id: string): RuleResult => {
    const found = done.report.rules.find((r) => r.id === id);
    assert.ok(found, `${id} not in the report`);
    return found;
  };
  return { ...done, rule };
}

const FAILURE = 'Error: expect(received).toBe(expected)\n\nExpected: 400\nReceived: 200';
/** A SHOULD rule found broken, as src/suite.ts reports it: the test passed, carrying the finding. */
const WARNING = { type: ANNOTATION.shouldWarning, description: 'Error: toBeRefusal\n\nExpected: a 4xx refusal\nReceived: 200 {}' };
const INFRA = 'Error: Infrastructure error (not a contract verdict): POST https://x.test/upload: socket closed';
/** What the transport notes when the target cannot be reached. */
const UNREACHABLE = { type: ANNOTATION.infrastructure, description: 'POST https://x.test/upload: socket closed' };

describe('verdict of a rule from its tests', () => {
  const cases: [string, Status[], string | undefined, string][] = [
    ['failed beats error, passed and skipped', ['passed', 'skipped', 'failed', 'failed'], 'error', 'failed'],
    ['error beats passed and skipped', ['passed', 'failed', 'skipped'], 'error', 'error'],
    ['passed beats skipped', ['skipped', 'skipped', 'passed'], undefined, 'passed'],
    ['skipped when every test skipped', ['skipped', 'skipped'], undefined, 'skipped'],
  ];
  for (const [name, statuses, errorKind, verdict] of cases) {
    const orders = [statuses, [...statuses].reverse()].filter((order, i, all) => i === 0 || order.join() !== all[0].join());
    for (const order of orders) {
      test(`${name} (${order.join(', ')})`, async () => {
        // With errorKind 'error', the one 'failed' status that comes first in `statuses` order is an infrastructure error.
        let infraLeft = errorKind === 'error' ? 1 : 0;
        const runsOf = order.map((status): Run => {
          if (status !== 'failed') return { rule: 'UPLOAD-FILES-MAX', status };
          const infra = infraLeft-- > 0;
          return infra ? { rule: 'UPLOAD-FILES-MAX', status, error: INFRA, notes: [UNREACHABLE] } : { rule: 'UPLOAD-FILES-MAX', status, error: FAILURE };
        });
        const { rule } = await report(runsOf);
        assert.equal(rule('UPLOAD-FILES-MAX').verdict, verdict);
        assert.equal(rule('UPLOAD-FILES-MAX').tests.length, order.length);
      });
    }
  }

  test('a rule no test named is skipped, saying so', async () => {
    const { rule } = await report([{ rule: 'UPLOAD-FILES-MAX', status: 'passed' }]);
    assert.deepEqual(rule('UPLOAD-SIZE-MAX'), { id: 'UPLOAD-SIZE-MAX', level: 'MUST', verdict: 'skipped', tests: [], detail: 'no test of this rule ran' });
  });

  test('a test without a rule annotation is left out', async () => {
    const { report: json } = await report([{ status: 'failed', error: FAILURE, title: 'helper test' }]);
    assert.ok(json.rules.every((r) => !r.tests.some((t) => t.title === 'helper test')));
  });

  test('the failure detail keeps the whole message, without colours or blank lines', async () => {
    const { rule } = await report([{ rule: 'UPLOAD-FILES-MAX', status: 'failed', error: `\u001b[31mError: a sixth file is refused\u001b[39m\n\n${FAILURE}\nline 5\nline 6\nline 7\nline 8` }]);
    assert.equal(rule('UPLOAD-FILES-MAX').detail, 'Error: a sixth file is refused\nError: expect(received).toBe(expected)\nExpected: 400\nReceived: 200\nline 5\nline 6\nline 7\nline 8');
  });
});

describe('status of the run', () => {
  test('a SHOULD finding is a warning: its test passed carrying it, the rule is failed (warned of), and the run passes', async () => {
    const { status, rule, printed } = await report([
      { rule: 'UPLOAD-FILES-MIN', status: 'passed', notes: [WARNING] },
      { rule: 'UPLOAD-FILES-MIN', status: 'passed' },
      { rule: 'UPLOAD-FILES-MAX', status: 'passed' },
    ]);
    assert.equal(rule('UPLOAD-FILES-MIN').level, 'SHOULD');
    assert.equal(rule('UPLOAD-FILES-MIN').verdict, 'failed');
    assert.equal(rule('UPLOAD-FILES-MIN').detail, 'Error: toBeRefusal\nExpected: a 4xx refusal\nReceived: 200 {}');
    assert.equal(status, 'passed');
    assert.match(printed, /warn\s+SHOULD\s+UPLOAD-FILES-MIN/);
    assert.match(printed, /SHOULD: 0 passed, 1 warned, \d+ skipped, 0 errors/);
    const lines = printed.split('\n');
    const tests = lines.findIndex((l) => l.startsWith('Tests: '));
    assert.deepEqual(lines.slice(tests, tests + 3), ['Tests: 3 passed, 0 failed, 0 skipped; 1 of the passed carry a SHOULD warning', 'Failed: no MUST rule', 'Warnings: 1 SHOULD rule, on 1 distinct observation']);
  });

  test('a test of a SHOULD rule that failed (no finding: it was never made a warning) still fails the rule, and not the run', async () => {
    const { status, rule } = await report([{ rule: 'UPLOAD-FILES-MIN', status: 'failed', error: FAILURE }]);
    assert.equal(rule('UPLOAD-FILES-MIN').verdict, 'failed');
    assert.equal(status, 'passed');
  });

  test('an INFO failure does not fail the run', async () => {
    const { status, rule } = await report([{ rule: 'UPLOAD-SIZE-UNIT', status: 'failed', error: FAILURE }]);
    assert.equal(rule('UPLOAD-SIZE-UNIT').verdict, 'failed');
    assert.equal(status, 'passed');
  });

  test('a MUST failure fails the run', async () => {
    const { status, rule, printed } = await report([
      { rule: 'UPLOAD-FILES-MAX', status: 'failed', error: FAILURE },
      { rule: 'UPLOAD-FILES-MIN', status: 'passed' },
    ]);
    assert.equal(rule('UPLOAD-FILES-MAX').verdict, 'failed');
    assert.equal(rule('UPLOAD-FILES-MAX').detail, 'Error: expect(received).toBe(expected)\nExpected: 400\nReceived: 200');
    assert.equal(status, 'failed');
    assert.match(printed, /FAIL\s+MUST\s+UPLOAD-FILES-MAX/);
    assert.match(printed, /MUST: 0 passed, 1 failed, \d+ skipped, 0 errors/);
  });

  for (const message of [
    INFRA,
    'Error: apiRequestContext.fetch: connect ECONNREFUSED 127.0.0.1:4010',
    'Error: read ECONNRESET',
    'Test timeout of 60000ms exceeded.',
  ]) {
    test(`an infrastructure error on a MUST rule is an error verdict and fails the run: ${message.slice(0, 50)}`, async () => {
      const timedOut = message.startsWith('Test timeout');
      const { status, rule, printed } = await report([{ rule: 'SECURE-URL-FORM', status: timedOut ? 'timedOut' : 'failed', error: message, notes: timedOut ? [] : [UNREACHABLE] }]);
      assert.equal(rule('SECURE-URL-FORM').verdict, 'error');
      assert.equal(rule('SECURE-URL-FORM').detail, message);
      assert.equal(status, 'failed');
      assert.match(printed, /ERROR\s+MUST\s+SECURE-URL-FORM/);
    });
  }

  test('a failure whose message merely names a network error, the target reached, is a contract failure', async () => {
    const { rule } = await report([{ rule: 'SECURE-URL-FORM', status: 'failed', error: 'Error: the body says "ECONNREFUSED upstream"' }]);
    assert.equal(rule('SECURE-URL-FORM').verdict, 'failed');
  });

  test('an infrastructure error on a SHOULD rule alone does not fail the run', async () => {
    const { status, rule } = await report([{ rule: 'SECURE-UNKNOWN-SLUG', status: 'failed', error: INFRA, notes: [UNREACHABLE] }]);
    assert.equal(rule('SECURE-UNKNOWN-SLUG').verdict, 'error');
    assert.equal(status, 'passed');
  });

  test('a run that passed stays passed', async () => {
    assert.equal((await report([{ rule: 'UPLOAD-FILES-MAX', status: 'passed' }], 'passed')).status, 'passed');
  });

  for (const overall of ['interrupted', 'timedout'] as const) {
    test(`a run ${overall} stays ${overall}`, async () => {
      assert.equal((await report([{ rule: 'UPLOAD-FILES-MAX', status: 'passed' }], overall)).status, overall);
    });
  }

  test('an interrupted test is an error verdict, not a contract failure', async () => {
    const { rule } = await report([{ rule: 'UPLOAD-FILES-MAX', status: 'interrupted' }], 'interrupted');
    assert.equal(rule('UPLOAD-FILES-MAX').verdict, 'error');
    assert.match(rule('UPLOAD-FILES-MAX').detail, /interrupted/);
  });
});

describe('checks that prove nothing, and prerequisites the contract guarantees', () => {
  test('a check whose control was refused is an error verdict saying so, never a pass or a failure', async () => {
    const why = 'the control, a valid upload, answered 404 {}: a refusal of the variant would prove nothing';
    const { rule, status } = await report([{ rule: 'AUTH-TOKEN-REQUIRED', status: 'failed', error: `Error: Inconclusive: ${why}`, notes: [{ type: ANNOTATION.inconclusive, description: why }] }]);
    assert.equal(rule('AUTH-TOKEN-REQUIRED').verdict, 'error');
    assert.match(rule('AUTH-TOKEN-REQUIRED').detail, /^Error: Inconclusive: the control/);
    assert.equal(status, 'failed', 'a MUST rule that could not be judged is no pass');
  });

  test('a test that passed beside a 429 that outlived the retries is an error verdict', async () => {
    const why = 'GET https://x.test/files/d/a was still answered 429 after 3 retries';
    const { rule } = await report([{ rule: 'SECURE-PRIVATE-AFTER', status: 'passed', notes: [{ type: ANNOTATION.inconclusive, description: why }] }]);
    assert.equal(rule('SECURE-PRIVATE-AFTER').verdict, 'error');
    assert.equal(rule('SECURE-PRIVATE-AFTER').detail, `Inconclusive: ${why}`);
  });

  test('a refused prerequisite fails the rule that guarantees it, while the dependent test skips', async () => {
    const { rule, status } = await report([
      { rule: 'UPLOAD-ACCEPTED', status: 'passed' },
      {
        rule: 'SECURE-PRIVATE-AFTER',
        title: 'SECURE-PRIVATE-AFTER a secure URL refuses anonymous reads after the hour',
        status: 'skipped',
        notes: [
          { type: ANNOTATION.violation, description: 'UPLOAD-ACCEPTED the upload of secure-after.pdf answered 400 {}' },
          { type: 'skip', description: 'prerequisite failed: the upload of secure-after.pdf answered 400 {} (a failure of UPLOAD-ACCEPTED)' },
        ],
      },
    ]);
    assert.equal(rule('SECURE-PRIVATE-AFTER').verdict, 'skipped');
    assert.equal(rule('UPLOAD-ACCEPTED').verdict, 'failed');
    assert.equal(rule('UPLOAD-ACCEPTED').detail, 'the upload of secure-after.pdf answered 400 {} (a prerequisite of SECURE-PRIVATE-AFTER a secure URL refuses anonymous reads after the hour)');
    assert.equal(status, 'failed');
  });
});

describe('details', () => {
  test("a skipped test's detail is the reason of its skip annotation", async () => {
    const reason = 'prerequisite failed: upload answered 500 (judged by UPLOAD-ACCEPTED)';
    const { rule } = await report([{ rule: 'SECURE-PUBLIC-WINDOW', status: 'skipped', notes: [{ type: 'skip', description: reason }] }]);
    assert.equal(rule('SECURE-PUBLIC-WINDOW').verdict, 'skipped');
    assert.equal(rule('SECURE-PUBLIC-WINDOW').detail, reason);
  });

  test("a skip without a reason says 'skipped'", async () => {
    const { rule } = await report([{ rule: 'SECURE-PUBLIC-WINDOW', status: 'skipped', notes: [{ type: 'skip' }] }]);
    assert.equal(rule('SECURE-PUBLIC-WINDOW').detail, 'skipped');
  });

  test('observations of INFO tests land in the detail, once each', async () => {
    const { rule } = await report([
      { rule: 'UPLOAD-SIZE-UNIT', status: 'passed', notes: [{ type: 'observation', description: '1 × 5000001 bytes: 200' }] },
      { rule: 'UPLOAD-SIZE-UNIT', status: 'passed', notes: [{ type: 'observation', description: '1 × 5242880 bytes: 413' }, { type: 'observation', description: 'body: too large' }] },
    ]);
    assert.equal(rule('UPLOAD-SIZE-UNIT').verdict, 'passed');
    assert.equal(rule('UPLOAD-SIZE-UNIT').detail, '1 × 5000001 bytes: 200\n1 × 5242880 bytes: 413; body: too large');
  });

  test('a failed verdict shows the failures only, not the observations of passing tests', async () => {
    const { rule } = await report([
      { rule: 'VERSION-MISSING', status: 'passed', notes: [{ type: 'observation', description: 'answered 400' }] },
      { rule: 'VERSION-MISSING', status: 'failed', error: FAILURE },
    ]);
    assert.equal(rule('VERSION-MISSING').detail, 'Error: expect(received).toBe(expected)\nExpected: 400\nReceived: 200');
  });
});

describe('the JSON file', () => {
  test('holds mode, target, apiVersion, serverTime and every rule of the catalogue in order', async () => {
    const { report: json } = await report([
      { rule: 'UPLOAD-FILES-MAX', status: 'passed', notes: [{ type: 'server-time', description: '2026-11-29T23:59:00.000Z' }] },
      { rule: 'UPLOAD-FILES-MIN', status: 'passed', notes: [{ type: 'server-time', description: '2026-11-30T00:00:00.000Z' }] },
    ]);
    assert.deepEqual(Object.keys(json), ['mode', 'target', 'apiVersion', 'serverTime', 'rules', 'causes']);
    assert.equal(json.mode, 'live');
    assert.equal(json.apiVersion, 'v3');
    assert.equal(json.target, 'reference server per worker (style default, seed 7, fault upload-six-files)');
    assert.equal(json.serverTime, '2026-11-29T23:59:00.000Z', 'the first server time seen');
    assert.deepEqual(json.rules.map((r) => r.id), RULES.map((r) => r.id));
    for (const r of json.rules) assert.deepEqual(Object.keys(r), ['id', 'level', 'verdict', 'tests', 'detail']);
  });

  test('serverTime is null when no test saw the server clock', async () => {
    assert.equal((await report([])).report.serverTime, null);
  });

  test('in replay it names the API version the recording was made with, which the tests sent, not the environment\'s', async () => {
    const replay = configOf({ API_VERSION: 'v9-from-the-environment' });
    const { report: json } = await report([], 'passed', replay);
    assert.equal(json.mode, 'replay');
    assert.equal(json.apiVersion, 'v3');
  });
});

describe('one report per project (the mutation run)', () => {
  test("each project's report names the fault and style its servers ran with", async () => {
    const dir = join(DIR, `projects-${++files}`);
    const reporter = new ConformanceReporter({ outputFile: join(dir, 'conformance.json'), byProject: true, config: configOf({ SUITE_MODE: 'live', REFERENCE_SERVER: '1' }) });
    end(reporter, { rule: 'UPLOAD-FILES-MAX', status: 'failed', error: FAILURE, project: { name: 'upload-six-files', use: { fault: 'upload-six-files' } } });
    end(reporter, { rule: 'UPLOAD-FILES-MAX', status: 'passed', project: { name: 'baseline', use: {} } });
    end(reporter, { rule: 'UPLOAD-FILES-MAX', status: 'passed', project: { name: 'baseline-alt', use: { style: 'alt' } } });
    await reporter.onEnd({ status: 'failed', startTime: new Date(), duration: 1 } as FullResult);
    const read = (name: string) => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as ConformanceReport;
    assert.equal(read('upload-six-files').target, 'reference server per worker (style default, seed 1, fault upload-six-files)');
    assert.equal(read('baseline').target, 'reference server per worker (style default, seed 1, fault none)');
    assert.equal(read('baseline-alt').target, 'reference server per worker (style alt, seed 1, fault none)');
  });
});

describe('the matrix where people look first', () => {
  /** A MUST failure, a rule not judged, a SHOULD warning and a pass, in no particular order. */
  const RUNS: Run[] = [
    { rule: 'UPLOAD-FILES-MIN', status: 'passed', notes: [WARNING] },
    { rule: 'UPLOAD-ACCEPTED', status: 'passed' },
    { rule: 'SECURE-URL-FORM', status: 'failed', error: INFRA, notes: [UNREACHABLE] },
    { rule: 'UPLOAD-FILES-MAX', status: 'failed', error: FAILURE },
  ];
  const LIVE = { SUITE_MODE: 'live', REFERENCE_SERVER: '1' };

  /** A run of RUNS into a fresh folder, `prepare` first (a shard, an Allure results folder). */
  async function run(env: Record<string, string>, prepare: (reporter: ConformanceReporter, dir: string) => void = () => {}) {
    const dir = join(DIR, `people-${++files}`);
    mkdirSync(dir, { recursive: true });
    const reporter = new ConformanceReporter({ outputFile: join(dir, 'conformance.json'), config: configOf({ ...LIVE, ...env }) });
    prepare(reporter, dir);
    for (const entry of RUNS) end(reporter, entry);
    await finish(reporter, join(dir, 'conformance.json'));
    return dir;
  }

  /** Asserts that each piece occurs in `text`, in this order. */
  function inOrder(text: string, pieces: string[]): void {
    const at = pieces.map((piece) => text.indexOf(piece));
    assert.ok(at.every((i) => i >= 0), `missing: ${pieces.filter((_, i) => at[i] < 0).join(', ')}`);
    assert.deepEqual(at, [...at].sort((a, b) => a - b), `out of order: ${pieces.join(' < ')}`);
  }

  test('GITHUB_STEP_SUMMARY gets MUST failures and rules not judged first, then SHOULD warnings, then the rest folded', async () => {
    const summary = join(DIR, `summary-${++files}.md`);
    writeFileSync(summary, '# an earlier step\n');
    await run({ GITHUB_STEP_SUMMARY: summary });
    const text = readFileSync(summary, 'utf8');
    assert.ok(text.startsWith('# an earlier step\n'), 'appended to, not overwritten');
    inOrder(text, ['## Failures', '| UPLOAD-FILES-MAX | MUST | FAIL |', '| SECURE-URL-FORM | MUST | ERROR |', '## Warnings', '| UPLOAD-FILES-MIN | SHOULD | warn |', '<details>', '| UPLOAD-ACCEPTED | MUST | pass |', '</details>']);
  });

  test("a shard leaves the summary and the Allure overview to the merged report: its matrix is partial", async () => {
    const summary = join(DIR, `summary-${++files}.md`);
    const dir = await run({ GITHUB_STEP_SUMMARY: summary }, (reporter, folder) => {
      mkdirSync(join(folder, 'allure-results'));
      reporter.onBegin({ shard: { current: 2, total: 3 } } as FullConfig);
    });
    assert.equal(existsSync(summary), false);
    assert.deepEqual(readdirSync(join(dir, 'allure-results')), []);
    assert.equal(existsSync(join(dir, 'contract.html')), false, 'no contract page of partial verdicts');
  });

  test('beside Allure results: the overview lists the failing rules first, then the counts, and the matrix is a global attachment', async () => {
    const dir = await run({}, (_reporter, folder) => mkdirSync(join(folder, 'allure-results')));
    const results = join(dir, 'allure-results');
    const environment = readFileSync(join(results, 'environment.properties'), 'utf8').split('\n');
    // In catalogue order within each group.
    assert.deepEqual(environment.slice(0, 2), ['failures=UPLOAD-FILES-MAX, SECURE-URL-FORM', 'warnings=UPLOAD-FILES-MIN']);
    // The rules no test judged are named as such, never folded into the counts' passes.
    assert.match(environment[2], /^unjudged=\d+ MUST and \d+ SHOULD rules; \d+ MUST and \d+ SHOULD unjudged: none of their tests ran \(UPLOAD-RESPONSE-SCHEMA, /);
    assert.match(environment.slice(3, 6).join('\n'), /^MUST=1 passed, 1 failed, \d+ skipped, 1 errors\nSHOULD=0 passed, 1 warned, \d+ skipped, 0 errors\nINFO=0 passed, 0 failed, \d+ skipped, 0 errors$/);
    const globals = readdirSync(results).filter((name) => name.endsWith('-globals.json'));
    assert.equal(globals.length, 1);
    const [attachment] = (JSON.parse(readFileSync(join(results, globals[0]), 'utf8')) as { attachments: { name: string; source: string; type: string }[] }).attachments;
    assert.equal(attachment.type, 'text/markdown');
    const text = readFileSync(join(results, attachment.source), 'utf8');
    // The Allure report shows HTML tags as text: the rest is a section of its own, not a <details> block.
    inOrder(text, ['## Failures', '## Warnings', '## Every other rule']);
    assert.doesNotMatch(text, /<details>|<br>/);
  });

  test('the console matrix, conformance.md and the job summary give the contract coverage figure of the contract page', async () => {
    const summary = join(DIR, `summary-${++files}.md`);
    const dir = await run({ GITHUB_STEP_SUMMARY: summary });
    const figure = coverageLine(coverageOf(annotatedContract().annotated));
    assert.match(figure, /^Contract coverage: \d+ of \d+ testable sentences checked \(\d+ MUST, \d+ SHOULD, \d+ INFO\)/);
    for (const text of [readFileSync(summary, 'utf8'), readFileSync(join(dir, 'conformance.md'), 'utf8')]) inOrder(text, ['INFO: ', figure, '## Failures']);
    assert.ok(readFileSync(join(dir, 'contract.html'), 'utf8').includes(figure));
  });

  test("the contract's page beside the reports shows each rule beside its words with this run's verdict, linked to its test", async () => {
    const dir = await run({}, (reporter) => end(reporter, { rule: 'UPLOAD-SIZE-UNIT', status: 'skipped', notes: [{ type: ANNOTATION.skip, description: 'no <sixth> file & "more"' }] }));
    const page = readFileSync(join(dir, 'contract.html'), 'utf8');
    const badge = (id: string) => new RegExp(`<span class="rule [^"]*" data-rule="${id}"[^>]*>.*?</span></span>`).exec(page)?.[0] ?? '';
    assert.match(badge('UPLOAD-FILES-MAX'), /verdict-failed.*<a href="[^"]*html\/index\.html#\?testId=id-\d+"[^>]*>UPLOAD-FILES-MAX<\/a> <span class="level">MUST<\/span> <span class="verdict">fail<\/span>/);
    assert.match(badge('UPLOAD-FILES-MIN'), /<span class="verdict">warn<\/span>/);
    assert.match(badge('SECURE-URL-FORM'), /<span class="verdict">error<\/span>/);
    assert.match(badge('UPLOAD-SIZE-MAX'), /<span class="verdict">skipped: no test of this rule ran<\/span>/);
    assert.match(page, /<span class="unchecked reason-out-of-scope">not checked, out of scope: not specified<\/span>/);
    for (const rule of RULES) assert.ok(page.includes(`data-rule="${rule.id}"`), `${rule.id} is on the page`);
    // A skipped rule says why, escaped.
    assert.match(badge('UPLOAD-SIZE-UNIT'), /<span class="verdict">skipped: no &lt;sixth&gt; file &amp; &quot;more&quot;<\/span>/);
  });

  test('a run stopped before any test (the preflight in the global setup) fails, with no matrix of rules nobody judged', async () => {
    const outputFile = join(DIR, `stopped-${++files}`, 'conformance.json');
    const reporter = new ConformanceReporter({ outputFile, config: CONFIG });
    reporter.onError({ message: 'Preflight of http://127.0.0.1:1 (API v3): 1 problem' });
    const write = process.stdout.write;
    let printed = '';
    process.stdout.write = ((chunk: string | Uint8Array) => ((printed += chunk.toString()), true)) as typeof process.stdout.write;
    try {
      // Playwright reports a run its global setup stopped as failed; the rules themselves would all be 'skipped'.
      assert.deepEqual(await reporter.onEnd({ status: 'failed', startTime: new Date(), duration: 1 } as FullResult), { status: 'failed' });
    } finally {
      process.stdout.write = write;
    }
    assert.equal(printed, '');
    assert.equal(existsSync(outputFile), false);
  });

  test('an error outside any test fails a run whose rules passed', async () => {
    const outputFile = join(DIR, `crashed-${++files}`, 'conformance.json');
    const reporter = new ConformanceReporter({ outputFile, config: CONFIG });
    end(reporter, { rule: 'UPLOAD-FILES-MAX', status: 'passed' });
    reporter.onError({ message: 'worker process exited unexpectedly' });
    assert.equal((await finish(reporter, outputFile)).status, 'failed');
  });
});

describe('a failure the server team can act on', () => {
  /** A failure as the privacy check prints it: the same behaviour seen by tests of three rules, each with its own file, server and slug. */
  const leak = (file: string, port: number, slug: string): Run['error'] =>
    `Error: routes by which a caller without files.readonly got the bytes: ${file}, 3601 s after the upload\n\nexpect(received).toEqual(expected) // deep equality\n\n- Expected  - 1\n+ Received  + 3\n\n- Array []\n+ Array [\n+   "the URL as given (200 from http://127.0.0.1:${port}/files/d/${slug})",\n+ ]`;
  const read = (port: number, slug: string): NonNullable<Run['evidence']> => [
    { method: 'POST', url: `http://127.0.0.1:${port}/conversations/messages/upload`, status: 200, requestHeaders: { authorization: 'Bearer [REDACTED]' } },
    { method: 'GET', url: `http://127.0.0.1:${port}/files/d/${slug}`, status: 200, requestHeaders: {} },
  ];
  const SHARED: Run[] = [
    { rule: 'SECURE-PRIVATE-AFTER', status: 'failed', error: leak('secure-after.pdf', 41001, 'att-d32b7139f1f7'), evidence: read(41001, 'att-d32b7139f1f7') },
    { rule: 'CUTOVER-ALL-SECURE', status: 'failed', error: leak('cutover-unset.pdf', 41002, 'att-9f8e7d6c5b4a'), evidence: read(41002, 'att-9f8e7d6c5b4a') },
    { rule: 'CUTOVER-FLAG-IGNORED', status: 'failed', error: leak('cutover-false.pdf', 41003, 'att-0a1b2c3d4e5f'), evidence: read(41003, 'att-0a1b2c3d4e5f') },
    { rule: 'CUTOVER-ALL-SECURE', status: 'passed' },
  ];

  test('rules that fail on one observation are named together, in the last lines, the matrix and the Allure overview; the last lines count the distinct observations', async () => {
    const outputFile = join(DIR, `shared-${++files}`, 'conformance.json');
    mkdirSync(join(dirname(outputFile), 'allure-results'), { recursive: true });
    const reporter = new ConformanceReporter({ outputFile, config: CONFIG });
    for (const run of [...SHARED, { rule: 'UPLOAD-FILES-MAX', status: 'failed' as const, error: FAILURE, evidence: read(41004, 'att-0a1b2c3d4e5f') }]) end(reporter, run);
    const { report: json, printed } = await finish(reporter, outputFile);
    const line = '3 rules fail on one observation: SECURE-PRIVATE-AFTER, CUTOVER-ALL-SECURE, CUTOVER-FLAG-IGNORED (Error: routes by which a caller without files.readonly got the bytes: secure-after.pdf, 3601 s after the upload)';
    assert.deepEqual(json.causes.map((c) => c.rules), [['UPLOAD-FILES-MAX'], ['SECURE-PRIVATE-AFTER', 'CUTOVER-ALL-SECURE', 'CUTOVER-FLAG-IGNORED']]);
    const lines = printed.trimEnd().split('\n');
    const tests = lines.findIndex((l) => l.startsWith('Tests: '));
    assert.deepEqual(lines.slice(tests, tests + 5), ['Tests: 1 passed, 4 failed, 0 skipped', line, 'Failed: 4 MUST rules, on 2 distinct observations', 'Warnings: no SHOULD rule', `Unjudged: ${RULES.filter((r) => r.level === 'MUST').length - 4} MUST and ${RULES.filter((r) => r.level === 'SHOULD').length} SHOULD rules`]);
    assert.ok(readFileSync(markdownOf(outputFile), 'utf8').includes(`- ${line}`));
    const environment = readFileSync(join(dirname(outputFile), 'allure-results', 'environment.properties'), 'utf8');
    assert.ok(environment.includes('3 rules fail on one observation: SECURE-PRIVATE-AFTER, CUTOVER-ALL-SECURE, CUTOVER-FLAG-IGNORED'));
    // The rule whose tests failed and passed reads as failed.
    assert.equal(json.rules.find((r) => r.id === 'CUTOVER-ALL-SECURE')?.verdict, 'failed');
  });

  test('failures with the same words on different requests, or without evidence, are never one observation', async () => {
    const { report: json } = await report([
      { rule: 'AUTH-TOKEN-REQUIRED', status: 'failed', error: FAILURE, evidence: [{ method: 'POST', url: 'http://x.test/conversations/messages/upload', status: 200, requestHeaders: {} }] },
      { rule: 'AUTH-MALFORMED', status: 'failed', error: FAILURE, evidence: [{ method: 'POST', url: 'http://x.test/conversations/messages/upload', status: 200, requestHeaders: { authorization: 'Bearer [REDACTED]' } }] },
      { rule: 'UPLOAD-FILES-MAX', status: 'failed', error: FAILURE },
      { rule: 'UPLOAD-FILES-MIN', status: 'failed', error: FAILURE },
    ]);
    assert.equal(json.causes.length, 4);
    assert.ok(json.causes.every((c) => c.rules.length === 1));
  });

  test("conformance.md holds each failure whole, folded, with the diff's every line", async () => {
    const outputFile = join(DIR, `whole-${++files}`, 'conformance.json');
    const reporter = new ConformanceReporter({ outputFile, config: CONFIG });
    const long = `${leak('secure-after.pdf', 41001, 'att-d32b7139f1f7')}\nHint: ${'a hint with `code` | and a pipe '.repeat(20)}`;
    end(reporter, { rule: 'SECURE-PRIVATE-AFTER', status: 'failed', error: long });
    await finish(reporter, outputFile);
    const text = readFileSync(markdownOf(outputFile), 'utf8');
    const folded = /<details><summary>SECURE-PRIVATE-AFTER \(FAIL\): Error: routes by which[^<]*<\/summary>\n\n```text\n([\s\S]*?)\n```\n\n<\/details>/.exec(text);
    assert.ok(folded, text);
    assert.equal(folded[1], long.split('\n').filter((l) => l.trim() !== '').join('\n'));
    assert.match(text, /\| SECURE-PRIVATE-AFTER \| MUST \| FAIL \| Error: routes by which a caller without files\.readonly got the bytes: secure-after\.pdf, 3601 s after the upload \(whole below\) \|/);
  });
});

describe('unjudged is visible', () => {
  const TIME = "needs 3630 s to pass on the server: set TEST_CLOCK_URL, or run the slow project (SUITE_SLOW=1) that really waits; this run's upload waits in .conformance-state/ for a later run to judge";
  const REGIME = "the server's date 2026-11-25T22:25:34.000Z is before the change of 30 November 2026; this check needs after";
  const skip = (rule: string, reason: string, title = `${rule} a test`): Run => ({ rule, title, status: 'skipped', notes: [{ type: ANNOTATION.skip, description: reason }] });
  /** Every rule judged but those skipped in `runs`. */
  const judgedBut = (runs: Run[]) => [...RULES.filter((r) => !runs.some((run) => run.rule === r.id)).map((r): Run => ({ rule: r.id, status: 'passed' })), ...runs];

  test('the last lines say how many MUST and SHOULD rules went unjudged, why, and how to judge them', async () => {
    const { printed } = await report(
      judgedBut([
        skip('SECURE-PUBLIC-WINDOW', TIME),
        skip('SECURE-PRIVATE-AFTER', TIME),
        skip('CUTOVER-ALL-SECURE', REGIME),
        skip('SECURE-SIGNED-TAMPER', TIME),
        skip('OAUTH-REFRESH', 'OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET are not set'),
        skip('AUTH-TENANT-FILES', 'FOREIGN_ACCESS_TOKEN is not set'),
        skip('SESSION-CONTINUE', 'prerequisite failed: the first reply carried no executionId (a failure of SESSION-START)'),
        skip('AUTH-PIT', 'PIT_TOKEN is not set'),
      ]),
      'passed',
    );
    assert.deepEqual(printed.trimEnd().split('\n').slice(-4), [
      'Unjudged: 5 MUST and 2 SHOULD rules',
      '  1 MUST unjudged: a prerequisite failed (SESSION-CONTINUE). Fix the failure each names (a failed rule above); they are judged once it passes.',
      // In catalogue order; the settings too. AUTH-PIT is INFO: an observation left out is no verdict missing.
      '  1 MUST and 1 SHOULD unjudged: they need optional settings (AUTH-TENANT-FILES, OAUTH-REFRESH). Set FOREIGN_ACCESS_TOKEN, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET (.env.example says what each is).',
      '  3 MUST and 1 SHOULD unjudged: they need time to pass on the server (SECURE-PUBLIC-WINDOW, SECURE-PRIVATE-AFTER, SECURE-SIGNED-TAMPER, CUTOVER-ALL-SECURE). Set TEST_CLOCK_URL, run SUITE_SLOW=1, or keep STATE_DIR for a later run.',
    ]);
  });

  test('past the change, the rules that need a date before it (a test clock only) are told apart from those that need time to pass', async () => {
    const AFTER = "the server's date 2026-12-01T12:00:27.000Z is after the change of 30 November 2026; this check needs before";
    const { printed } = await report(
      judgedBut([
        skip('SECURE-PUBLIC-WINDOW', TIME),
        skip('SECURE-SIGNED-EXPIRES', TIME),
        skip('PERMANENT-URL-ANONYMOUS', AFTER),
        skip('PERMANENT-URL-LASTS', `${AFTER}; no upload of an earlier run waits`),
        // One test that time would judge is enough: the rule waits for time, not for a test clock.
        skip('CUTOVER-ALL-SECURE', AFTER, 'CUTOVER-ALL-SECURE a test'),
        skip('CUTOVER-ALL-SECURE', TIME, 'CUTOVER-ALL-SECURE another test'),
      ]),
      'passed',
    );
    assert.deepEqual(printed.trimEnd().split('\n').slice(-3), [
      'Unjudged: 4 MUST and 1 SHOULD rules',
      '  2 MUST and 1 SHOULD unjudged: they need time to pass on the server (SECURE-PUBLIC-WINDOW, SECURE-SIGNED-EXPIRES, CUTOVER-ALL-SECURE). Set TEST_CLOCK_URL, run SUITE_SLOW=1, or keep STATE_DIR for a later run.',
      '  2 MUST unjudged: they need a date before the change of 30 November 2026: TEST_CLOCK_URL only (PERMANENT-URL-ANONYMOUS, PERMANENT-URL-LASTS). Set TEST_CLOCK_URL: the server is past the change, and time passing never brings it back.',
    ]);
  });

  test('a run that judged every MUST and SHOULD rule says so in its last line', async () => {
    const { printed } = await report(judgedBut([]), 'passed');
    assert.equal(printed.trimEnd().split('\n').at(-1), 'Unjudged: none; every MUST and SHOULD rule was judged');
  });

  test('the console names each skipped test under its reason', async () => {
    const { printed } = await report([skip('SECURE-PUBLIC-WINDOW', TIME, 'SECURE-PUBLIC-WINDOW within the hour'), skip('CUTOVER-ALL-SECURE', REGIME, 'CUTOVER-ALL-SECURE after the change'), skip('SECURE-PRIVATE-AFTER', TIME, 'SECURE-PRIVATE-AFTER after the hour')]);
    assert.ok(printed.includes(`3 tests skipped, each under its reason:\n  ${TIME}:\n    - SECURE-PRIVATE-AFTER after the hour\n    - SECURE-PUBLIC-WINDOW within the hour\n  ${REGIME}:\n    - CUTOVER-ALL-SECURE after the change\n`), printed);
  });

  test('conformance.md shows the unjudged rules in a section of their own with how to judge them, not folded', async () => {
    const outputFile = join(DIR, `unjudged-${++files}`, 'conformance.json');
    const reporter = new ConformanceReporter({ outputFile, config: CONFIG });
    for (const run of judgedBut([skip('SECURE-PUBLIC-WINDOW', TIME)])) end(reporter, run);
    await finish(reporter, outputFile, 'passed');
    const text = readFileSync(markdownOf(outputFile), 'utf8');
    const section = text.slice(text.indexOf('## Unjudged'), text.indexOf('<details>'));
    assert.match(section, /^## Unjudged: MUST and SHOULD rules no test could judge \(1\)\n\n- 1 MUST unjudged: they need time to pass on the server \(SECURE-PUBLIC-WINDOW\)\. Set TEST_CLOCK_URL/);
    assert.match(section, /\| SECURE-PUBLIC-WINDOW \| MUST \| skip \| needs 3630 s to pass on the server/);
  });
});

describe('reports written whole', () => {
  test("a run clears the previous run's verdicts as it begins, and a run stopped before any test leaves none", async () => {
    const outputFile = join(DIR, `stale-${++files}`, 'conformance.json');
    mkdirSync(dirname(outputFile), { recursive: true });
    for (const file of [outputFile, markdownOf(outputFile)]) writeFileSync(file, 'an earlier run');
    const reporter = new ConformanceReporter({ outputFile, config: CONFIG });
    reporter.onBegin({ shard: null } as FullConfig);
    assert.deepEqual(readdirSync(dirname(outputFile)), []);
    reporter.onError({ message: 'Preflight of http://127.0.0.1:1 (API v3): 1 problem' });
    await reporter.onEnd({ status: 'failed', startTime: new Date(), duration: 1 } as FullResult);
    assert.deepEqual(readdirSync(dirname(outputFile)), []);
  });

  test('junit.xml counts an error outside any test as an errored test case, and no file is left half written', async () => {
    const dir = join(DIR, `junit-${++files}`);
    mkdirSync(dir, { recursive: true });
    const junitFile = join(dir, 'junit.xml');
    // What Playwright writes for a run its global setup stopped.
    writeFileSync(junitFile, '<testsuites id="" name="" tests="0" failures="0" skipped="0" errors="0" time="0.4">\n</testsuites>\n');
    const reporter = new ConformanceReporter({ outputFile: join(dir, 'conformance.json'), config: CONFIG, junitFile });
    reporter.onError({ message: '\u001b[31mError: Preflight of http://127.0.0.1:1 (API v3): 1 problem\u001b[39m\n  BASE_URL=http://127.0.0.1:1: connection refused' });
    await reporter.onEnd({ status: 'failed', startTime: new Date(), duration: 1 } as FullResult);
    const xml = readFileSync(junitFile, 'utf8');
    assert.match(xml, /^<testsuites id="" name="" tests="1" failures="0" skipped="0" errors="1" time="0.4">/);
    assert.match(xml, /<testcase name="error outside any test 1" classname="run"><error message="Error: Preflight of http:\/\/127.0.0.1:1 \(API v3\): 1 problem"\/><\/testcase>/);
    assert.deepEqual(readdirSync(dir), ['junit.xml']);
  });

  test("junit.xml, as a JUnit parser reads it: a skipped test gives its reason, a warned test its finding in <system-out>, whatever a test's output holds", async () => {
    const dir = join(DIR, `junit-${++files}`);
    mkdirSync(dir, { recursive: true });
    const junitFile = join(dir, 'junit.xml');
    // As Playwright writes them: the annotations as properties, a test's output in character data.
    const props = (pairs: [string, string][]) => `<properties>\n${pairs.map(([name, value]) => `<property name="${name}" value="${value}">\n</property>`).join('\n')}\n</properties>`;
    writeFileSync(
      junitFile,
      [
        '<testsuites id="" name="" tests="3" failures="0" skipped="1" errors="0" time="1">',
        '<testsuite name="a.spec.ts" tests="3" failures="0" skipped="1" errors="0">',
        `<testcase name="a › UPLOAD-EXT-CASE x" classname="a.spec.ts">\n${props([['rule', 'UPLOAD-EXT-CASE'], [ANNOTATION.shouldWarning, 'Error: toBeAcceptance\n\nReceived: 400 {&quot;a&quot;:&quot;]]&gt;&quot;}']])}\n<system-out>\n<![CDATA[printed </testcase> <skipped>\n]]>\n</system-out>\n</testcase>`,
        `<testcase name="a › UPLOAD-ACCEPTED y" classname="a.spec.ts">\n${props([['rule', 'UPLOAD-ACCEPTED'], ['skip', 'WORKFLOW_ID is not set']])}\n<skipped>\n</skipped>\n</testcase>`,
        `<testcase name="a › UPLOAD-EXT-CASE z" classname="a.spec.ts">\n${props([['rule', 'UPLOAD-EXT-CASE'], [ANNOTATION.shouldWarning, 'Error: two']])}\n</testcase>`,
        '</testsuite>',
        '</testsuites>',
      ].join('\n'),
    );
    const reporter = new ConformanceReporter({ outputFile: join(dir, 'conformance.json'), config: CONFIG, junitFile });
    end(reporter, { rule: 'UPLOAD-ACCEPTED', status: 'passed' });
    await finish(reporter, join(dir, 'conformance.json'), 'passed');
    const parsed = await parseJunit(readFileSync(junitFile, 'utf8'));
    const cases = parsed && 'testsuite' in parsed ? (parsed.testsuite ?? []).flatMap((suite) => suite.testcase ?? []) : [];
    assert.deepEqual(
      cases.map((c) => ({ name: c.name, skipped: c.skipped?.[0].message, out: c['system-out']?.join(''), failed: Boolean(c.failure || c.error) })),
      [
        { name: 'a › UPLOAD-EXT-CASE x', skipped: undefined, out: 'SHOULD warning of UPLOAD-EXT-CASE (the test passes): Error: toBeAcceptance\n\nReceived: 400 {"a":"]]>"}\n\nprinted </testcase> <skipped>\n\n', failed: false },
        { name: 'a › UPLOAD-ACCEPTED y', skipped: 'WORKFLOW_ID is not set', out: undefined, failed: false },
        { name: 'a › UPLOAD-EXT-CASE z', skipped: undefined, out: 'SHOULD warning of UPLOAD-EXT-CASE (the test passes): Error: two\n', failed: false },
      ],
    );
  });

  test("each test's story in the Allure results ends in its rule's verdict: one passed test of a failed rule reads as the rule's failure", async () => {
    const dir = join(DIR, `stories-${++files}`);
    const results = join(dir, 'allure-results');
    mkdirSync(results, { recursive: true });
    const story = (value: string) => ({ labels: [{ name: 'story', value }, { name: 'tag', value: 'MUST' }] });
    writeFileSync(join(results, 'a-result.json'), JSON.stringify(story('CUTOVER-ALL-SECURE from 30 November 2026 an upload without the flag is secure')));
    writeFileSync(join(results, 'b-result.json'), JSON.stringify(story('SECURE-PUBLIC-WINDOW a secure URL serves anonymously within the hour')));
    const reporter = new ConformanceReporter({ outputFile: join(dir, 'conformance.json'), config: CONFIG });
    end(reporter, { rule: 'CUTOVER-ALL-SECURE', status: 'failed', error: FAILURE });
    end(reporter, { rule: 'CUTOVER-ALL-SECURE', status: 'passed' });
    end(reporter, { rule: 'SECURE-PUBLIC-WINDOW', status: 'skipped', notes: [{ type: ANNOTATION.skip, description: 'needs 3570 s to pass on the server' }] });
    await finish(reporter, join(dir, 'conformance.json'));
    const storyOf = (file: string) => (JSON.parse(readFileSync(join(results, file), 'utf8')) as ReturnType<typeof story>).labels[0].value;
    assert.equal(storyOf('a-result.json'), 'CUTOVER-ALL-SECURE from 30 November 2026 an upload without the flag is secure: rule FAIL');
    assert.equal(storyOf('b-result.json'), 'SECURE-PUBLIC-WINDOW a secure URL serves anonymously within the hour: rule unjudged');
  });
});

describe("the contract's page as a Markdown renderer shows it", () => {
  const page = contractPage();
  test('headings without their marks, the comment hidden, list items as lists', () => {
    assert.match(page, /<h2 id="8-limits">8\. Limits<\/h2>/);
    assert.doesNotMatch(page.replace(/<!--[\s\S]*?-->/g, ''), /&lt;!--|>#+ /);
    assert.doesNotMatch(page, /<span class="marker">/);
    // §4.1: its items, then its numbered rules nested under "Rules:", numbered as the contract numbers them.
    assert.match(page, /<ul>\n<li><span class="unit"><span class="words">Request: multipart\/form-data with the fields of 2\.1\.[\s\S]*?<li><span class="label">Rules:<\/span> \n<ol>\n<li value="1">/);
    assert.equal((page.match(/<(ul|ol)>/g) ?? []).length, (page.match(/<\/(ul|ol)>/g) ?? []).length);
  });
});

describe('a skip is never shown as an error', () => {
  // allure-playwright reports a skip inside a hook (beforeEach, beforeAll) as a failed hook and a red global error:
  // every skip happens in a test's own body.
  test('no hook of a spec skips', () => {
    const specs = join(new URL('../../', import.meta.url).pathname, 'specs');
    for (const name of readdirSync(specs).filter((file) => file.endsWith('.spec.ts'))) {
      const text = readFileSync(join(specs, name), 'utf8');
      for (const hook of text.matchAll(/\btest\.(?:beforeEach|beforeAll|afterEach|afterAll)\(/g)) {
        let depth = 0;
        let end = hook.index + hook[0].length - 1;
        do depth += text[end] === '(' ? 1 : text[end] === ')' ? -1 : 0;
        while (depth > 0 && ++end < text.length);
        assert.doesNotMatch(text.slice(hook.index, end), /\bskip\(|requireSettings\(|prerequisiteFailed\(|requireAccepted\(|requireControl\(/, `${name}: a hook that skips`);
      }
    }
  });
});
