// ConformanceReporter driven directly with made-up test cases and results (only the fields it reads):
// verdicts per rule, the run's status, details, and the JSON file.
import type { FullConfig, FullResult, TestCase, TestResult } from '@playwright/test/reporter';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ANNOTATION } from '../report/annotations.ts';
import { loadConfig, readEnvironment, type SuiteConfig } from '../config/config.ts';
import ConformanceReporter, { type ConformanceReport, type RuleResult } from '../report/conformance-reporter.ts';
import { annotatedContract, coverageLine, coverageOf } from '../contract/coverage.ts';
import { RULES } from '../contract/rules.ts';

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
}

let runs = 0;
/** One test's end, as Playwright 1.5x reports it: test.annotations and result.annotations are the same list. */
function end(reporter: ConformanceReporter, run: Run): void {
  const annotations: Annotation[] = [...(run.rule ? [{ type: 'rule', description: run.rule }] : []), ...(run.notes ?? [])];
  const testCase = { id: `id-${++runs}`, title: run.title ?? `${run.rule ?? 'NO-RULE'} test ${runs}`, annotations, parent: { project: () => run.project } };
  const result = { status: run.status, annotations, errors: run.error === undefined ? [] : [{ message: run.error }] };
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

  test('the failure detail keeps the first lines of the message, without colours', async () => {
    const { rule } = await report([{ rule: 'UPLOAD-FILES-MAX', status: 'failed', error: `\u001b[31mError: a sixth file is refused\u001b[39m\n\n${FAILURE}\nline 5\nline 6\nline 7\nline 8` }]);
    assert.equal(rule('UPLOAD-FILES-MAX').detail, 'Error: a sixth file is refused\nError: expect(received).toBe(expected)\nExpected: 400\nReceived: 200\nline 5\nline 6');
  });
});

describe('status of the run', () => {
  test('a SHOULD failure is a failed verdict but the run passes', async () => {
    const { status, rule, printed } = await report([
      { rule: 'UPLOAD-FILES-MIN', status: 'failed', error: FAILURE },
      { rule: 'UPLOAD-FILES-MAX', status: 'passed' },
    ]);
    assert.equal(rule('UPLOAD-FILES-MIN').level, 'SHOULD');
    assert.equal(rule('UPLOAD-FILES-MIN').verdict, 'failed');
    assert.equal(status, 'passed');
    assert.match(printed, /warn\s+SHOULD\s+UPLOAD-FILES-MIN/);
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
    assert.deepEqual(Object.keys(json), ['mode', 'target', 'apiVersion', 'serverTime', 'rules']);
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
    { rule: 'UPLOAD-FILES-MIN', status: 'failed', error: FAILURE },
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
    assert.match(environment.slice(2, 5).join('\n'), /^MUST=1 passed, 1 failed, \d+ skipped, 1 errors\nSHOULD=0 passed, 1 failed, \d+ skipped, 0 errors\nINFO=0 passed, 0 failed, \d+ skipped, 0 errors$/);
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
