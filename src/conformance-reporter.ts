// Turns test results into verdicts per rule: reports/conformance.json and a matrix on the console.
// The run fails if and only if a MUST rule failed or could not be judged for an infrastructure error.
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ANNOTATION, type AnnotationType, notesOf } from './annotations.ts';
import { describeTarget, suiteConfig, type SuiteConfig } from './config.ts';
import { type Level, RULES } from './rules.ts';

export type Verdict = 'passed' | 'failed' | 'skipped' | 'error';

export interface RuleResult {
  id: string;
  level: Level;
  verdict: Verdict;
  tests: string[];
  detail: string;
}

export interface ConformanceReport {
  mode: string;
  target: string;
  apiVersion: string;
  serverTime: string | null;
  rules: RuleResult[];
}

interface Outcome {
  title: string;
  verdict: Verdict;
  detail: string;
}

export default class ConformanceReporter implements Reporter {
  /** Outcomes by project (one key, '', unless byProject) and then by rule. */
  readonly #outcomes = new Map<string, Map<string, Outcome[]>>();
  readonly #outputFile: string;
  readonly #byProject: boolean;
  /** The run's configuration, as the tests used it; undefined when it could not be read. */
  readonly #config: SuiteConfig | undefined;
  #unconfigured = '';
  /** The fault of each project's reference servers, as the tests used it. */
  /** The reference fault and style of each project. */
  readonly #servers = new Map<string, { fault?: string; style?: string }>();
  /** Test time by project, in ms. */
  readonly #durations = new Map<string, number>();
  #serverTime: string | null = null;
  /** Titles of the tests that used an operation the contract marks deprecated. */
  readonly #deprecatedUses = new Set<string>();
  /** Retries of 429 and 503 answers, each described by its test. */
  readonly #retries: string[] = [];
  readonly #counts = { passed: 0, failed: 0, skipped: 0 };

  /** byProject: one report per project, `<dir>/<project>.json` (the mutation run gives each fault a project). */
  constructor(options: { outputFile?: string; byProject?: boolean; config?: SuiteConfig } = {}) {
    let config: SuiteConfig | undefined;
    try {
      config = options.config ?? suiteConfig();
    } catch (error) {
      this.#unconfigured = `unconfigured: ${(error as Error).message.split('\n')[0]}`;
    }
    this.#config = config;
    this.#outputFile = options.outputFile ?? `${config?.reportsDir ?? 'reports'}/conformance.json`;
    this.#byProject = options.byProject ?? false;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const annotations = [...test.annotations, ...result.annotations];
    const notes = (type: AnnotationType) => notesOf(annotations, type);
    this.#serverTime ??= notes(ANNOTATION.serverTime)[0] ?? null;
    for (const operation of notes(ANNOTATION.deprecatedOperation)) this.#deprecatedUses.add(`${test.title}: ${operation}`);
    this.#retries.push(...notes(ANNOTATION.retry).map((what) => `${test.title}: ${what}`));
    this.#counts[result.status === 'passed' ? 'passed' : result.status === 'skipped' ? 'skipped' : 'failed'] += 1;
    const ruleId = notes(ANNOTATION.rule)[0];
    if (!ruleId) return;
    const message = result.errors.map((e) => e.message ?? '').join('\n');
    // The target unreachable, a check that proved nothing, a test out of time or a run cut short: no verdict on the
    // rule, and never a pass.
    const noVerdict = [...notes(ANNOTATION.inconclusive).map((why) => `Inconclusive: ${why}`), ...notes(ANNOTATION.infrastructure)];
    const verdict: Verdict =
      noVerdict.length > 0 || result.status === 'interrupted' || result.status === 'timedOut' ? 'error'
      : result.status === 'passed' ? 'passed'
      : result.status === 'skipped' ? 'skipped'
      : 'failed';
    const detail =
      verdict === 'skipped' ? notes(ANNOTATION.skip)[0] || 'skipped'
      : verdict === 'passed' ? notes(ANNOTATION.observation).join('; ')
      : firstLines(message) || noVerdict[0] || `the test ended ${result.status} without a message`;
    const project = this.#byProject ? (test.parent.project()?.name ?? '') : '';
    this.#servers.set(project, (test.parent.project()?.use as { fault?: string; style?: string } | undefined) ?? {});
    this.#durations.set(project, (this.#durations.get(project) ?? 0) + result.duration);
    const rules = this.#outcomes.get(project) ?? new Map<string, Outcome[]>();
    const add = (id: string, outcome: Outcome) => rules.set(id, [...(rules.get(id) ?? []), outcome]);
    add(ruleId, { title: test.title, verdict, detail });
    // A prerequisite the contract guarantees, refused in this test: a failure of the rule that guarantees it.
    for (const violation of notes(ANNOTATION.violation)) {
      const [id, ...what] = violation.split(' ');
      add(id, { title: test.title, verdict: 'failed', detail: `${what.join(' ')} (a prerequisite of ${test.title})` });
    }
    this.#outcomes.set(project, rules);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    mkdirSync(dirname(this.#outputFile), { recursive: true });
    if (this.#byProject) {
      for (const project of this.#outcomes.keys()) {
        // With the time of its tests, in seconds: the mutation run has no other clock per project.
        const report = { ...this.#report(project), seconds: (this.#durations.get(project) ?? 0) / 1000 };
        writeFileSync(join(dirname(this.#outputFile), `${project}.json`), `${JSON.stringify(report, null, 2)}\n`);
      }
      return { status: result.status };
    }
    const report = this.#report('');
    writeFileSync(this.#outputFile, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(this.#outputFile.replace(/\.json$/, '.md'), markdown(report));
    process.stdout.write(matrix(report));
    if (this.#deprecatedUses.size > 0) {
      process.stdout.write(`${this.#deprecatedUses.size} tests used a deprecated operation (flagged in each test's annotations).\n`);
    }
    if (this.#retries.length > 0) process.stdout.write(`${this.#retries.length} requests were retried after 429 or 503 (the 'retry' annotations).\n`);
    // Test counts, SHOULD warnings among the failed; the verdict is the matrix above.
    process.stdout.write(`Tests: ${this.#counts.passed} passed, ${this.#counts.failed} failed, ${this.#counts.skipped} skipped\n`);
    const mustBroken = report.rules.some((r) => r.level === 'MUST' && (r.verdict === 'failed' || r.verdict === 'error'));
    if (result.status !== 'passed' && result.status !== 'failed') return { status: result.status };
    return { status: mustBroken ? 'failed' : 'passed' };
  }

  #report(project: string): ConformanceReport {
    const rules = RULES.map((rule): RuleResult => {
      // In title order, not the order tests ended in: two runs of one server give one report.
      const outcomes = [...(this.#outcomes.get(project)?.get(rule.id) ?? [])].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
      const pick = (v: Verdict) => outcomes.filter((o) => o.verdict === v);
      const verdict: Verdict =
        pick('failed').length > 0 ? 'failed'
        : pick('error').length > 0 ? 'error'
        : pick('passed').length > 0 ? 'passed'
        : 'skipped';
      const details = (verdict === 'passed' ? pick('passed') : pick(verdict)).map((o) => o.detail).filter(Boolean);
      return {
        id: rule.id,
        level: rule.level,
        verdict,
        tests: outcomes.map((o) => o.title),
        detail: outcomes.length === 0 ? 'no test of this rule ran' : [...new Set(details)].join('\n'),
      };
    });
    const run = this.#config
      ? { mode: this.#config.mode, target: describeTarget(this.#config, this.#servers.get(project)?.fault, this.#servers.get(project)?.style), apiVersion: this.#config.apiVersion }
      : { mode: 'unknown', target: this.#unconfigured, apiVersion: 'unknown' };
    return { ...run, serverTime: this.#serverTime, rules };
  }
}

function firstLines(message: string): string {
  // Strip terminal colours; keep the Expected / Received / Hint lines that the checks print.
  return message.replace(/\u001b\[[0-9;]*m/g, '').split('\n').filter((line) => line.trim() !== '').slice(0, 6).join('\n');
}

const LABEL: Record<Level, Record<Verdict, string>> = {
  MUST: { passed: 'pass', failed: 'FAIL', skipped: 'skip', error: 'ERROR' },
  SHOULD: { passed: 'pass', failed: 'warn', skipped: 'skip', error: 'ERROR' },
  INFO: { passed: 'seen', failed: 'seen', skipped: 'skip', error: 'ERROR' },
};

function summaryLine(report: ConformanceReport): string {
  const count = (level: Level, verdict: Verdict) => report.rules.filter((r) => r.level === level && r.verdict === verdict).length;
  return (['MUST', 'SHOULD', 'INFO'] as Level[])
    .map((level) => `${level}: ${count(level, 'passed')} passed, ${count(level, 'failed')} failed, ${count(level, 'skipped')} skipped, ${count(level, 'error')} errors`)
    .join(' | ');
}

function matrix(report: ConformanceReport): string {
  const lines = report.rules.map((r) => `  ${LABEL[r.level][r.verdict].padEnd(5)} ${r.level.padEnd(6)} ${r.id}`);
  return `\nConformance of ${report.target} (API ${report.apiVersion}, mode ${report.mode}, server time ${report.serverTime ?? 'unknown'})\n${lines.join('\n')}\n${summaryLine(report)}\n`;
}

/** reports/conformance.md: the same matrix for people, with each rule's detail. */
function markdown(report: ConformanceReport): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, '<br>');
  const rows = report.rules.map((r) => `| ${r.id} | ${r.level} | ${LABEL[r.level][r.verdict]} | ${cell(r.detail)} |`);
  return [
    `# Conformance of ${report.target}`,
    '',
    `API ${report.apiVersion}, mode ${report.mode}, server time ${report.serverTime ?? 'unknown'}.`,
    '',
    summaryLine(report),
    '',
    '| rule | level | verdict | detail |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
