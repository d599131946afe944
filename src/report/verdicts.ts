// The verdicts of a run, as the conformance reporter computes them once (reports/conformance.json), and their counts:
// what the matrix, the job summary and the contract's page all show.
import type { Level } from '../contract/rules.ts';

export type Verdict = 'passed' | 'failed' | 'skipped' | 'error';

/** A test of a rule: its title, and Playwright's id of it (its page in the HTML report: `index.html#?testId=…`). */
export interface RuleTest {
  title: string;
  id: string;
}

export interface RuleResult {
  id: string;
  level: Level;
  verdict: Verdict;
  tests: RuleTest[];
  detail: string;
}

export interface ConformanceReport {
  mode: string;
  target: string;
  apiVersion: string;
  serverTime: string | null;
  rules: RuleResult[];
}

export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];

/** `14 passed, 1 failed, 23 skipped, 0 errors`: the verdicts of one level's rules. */
export function counts(report: ConformanceReport, level: Level): string {
  const count = (verdict: Verdict) => report.rules.filter((r) => r.level === level && r.verdict === verdict).length;
  return `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped, ${count('error')} errors`;
}

export function summaryLine(report: ConformanceReport): string {
  return LEVELS.map((level) => `${level}: ${counts(report, level)}`).join(' | ');
}
