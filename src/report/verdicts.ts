// The verdicts of a run, as the conformance reporter computes them once (reports/conformance.json), and their counts:
// what the matrix, the job summary and the contract's page all show; the failures grouped by the observation they
// share, and the rules left unjudged grouped by what it would take to judge them.
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
  /** The failures' messages whole (Received, Expected, Hint), the skip reasons, or the observations. */
  detail: string;
}

/** One observation (an exchange and its answer) that failed tests of these MUST or SHOULD rules, in catalogue order. */
export interface Cause {
  /** The first line of the failure, as the first test that saw it reported it. */
  observation: string;
  rules: string[];
}

export interface ConformanceReport {
  mode: string;
  target: string;
  apiVersion: string;
  serverTime: string | null;
  rules: RuleResult[];
  /** Every distinct observation behind the failed MUST and SHOULD rules. */
  causes: Cause[];
  /** What the model's sequences covered (src/model/coverage.ts), where any ran. */
  modelCoverage?: string;
}

export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];

/** `14 passed, 1 failed, 23 skipped, 0 errors`: the verdicts of one level's rules; a failed SHOULD rule is a warning. */
export function counts(report: ConformanceReport, level: Level): string {
  const count = (verdict: Verdict) => report.rules.filter((r) => r.level === level && r.verdict === verdict).length;
  return `${count('passed')} passed, ${count('failed')} ${level === 'SHOULD' ? 'warned' : 'failed'}, ${count('skipped')} skipped, ${count('error')} errors`;
}

export function summaryLine(report: ConformanceReport): string {
  return LEVELS.map((level) => `${level}: ${counts(report, level)}`).join(' | ');
}

/**
 * What a test's failure observed, without what differs from test to test for the same behaviour: the origin (each
 * test may have a server of its own), ids and slugs a server issued, the names of the files a test chose. Two
 * failures with one key saw one behaviour; `exchange` (the last request and answer of the test's evidence) keeps
 * apart checks that print the same words for different requests.
 */
export function observationKey(message: string, exchange = ''): string {
  const plain = `${message}\n${exchange}`
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^/\s"')\]]+/gi, '{origin}')
    .replace(/(?:%[0-9A-F]{2}){3,}/gi, '{id}')
    .replace(/\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{8,}\b/g, '{id}')
    .replace(/\b[\w-]+\.[a-z0-9]{2,5}\b/gi, '{file}');
  return plain.split('\n').map((line) => line.trim()).filter(Boolean).join('\n');
}

/** "3 rules fail on one observation: A, B, C (…)", for each observation more than one rule failed on. */
export function sharedCauseLines(report: ConformanceReport): string[] {
  return report.causes.filter((cause) => cause.rules.length > 1).map((cause) => `${cause.rules.length} rules fail on one observation: ${cause.rules.join(', ')} (${cause.observation})`);
}

/**
 * The failed MUST rules, then the SHOULD rules warned of (a failed SHOULD rule is a warning, its tests pass), each
 * with the distinct observations behind them: `Failed: 2 MUST rules, on 1 distinct observation`.
 */
export function failureLines(report: ConformanceReport): string[] {
  const line = (head: string, level: 'MUST' | 'SHOULD') => {
    const rules = report.rules.filter((r) => r.level === level && r.verdict === 'failed').map((r) => r.id);
    if (rules.length === 0) return `${head}: no ${level} rule`;
    const causes = report.causes.filter((cause) => cause.rules.some((id) => rules.includes(id))).length;
    return `${head}: ${rules.length} ${level} rule${rules.length === 1 ? '' : 's'}, on ${causes} distinct observation${causes === 1 ? '' : 's'}`;
  };
  return [line('Failed', 'MUST'), line('Warnings', 'SHOULD')];
}

/** What it takes to judge a skipped rule, from its skip reasons; first the kinds whose fix comes first. */
const UNJUDGED_KINDS = [
  { kind: 'prerequisite', match: /^prerequisite failed/, why: 'a prerequisite failed', how: 'Fix the failure each names (a failed rule above); they are judged once it passes.' },
  { kind: 'setting', match: /^[A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)* (?:is|are) not set/, why: 'they need optional settings', how: 'Set {settings} (.env.example says what each is).' },
  {
    kind: 'time',
    match: /to pass on the server|TEST_CLOCK_URL|the change of 30 November 2026; this check needs after\b/,
    why: 'they need time to pass on the server',
    how: 'Set TEST_CLOCK_URL, run SUITE_SLOW=1, or keep STATE_DIR for a later run.',
  },
  // Past the change, time passing never brings the server back before it: only a test clock does.
  {
    kind: 'before the change',
    match: /the change of 30 November 2026; this check needs before\b/,
    why: 'they need a date before the change of 30 November 2026: TEST_CLOCK_URL only',
    how: 'Set TEST_CLOCK_URL: the server is past the change, and time passing never brings it back.',
  },
  { kind: 'spent', match: /spent by an earlier run/, why: 'OAUTH_REFRESH_TOKEN was spent by an earlier run', how: 'Give each run a fresh OAUTH_REFRESH_TOKEN.' },
  { kind: 'not applicable', match: /^not applicable|does not name its slug|has no query parameter/, why: 'they do not apply to this server', how: 'Nothing to do: what they would need is not guaranteed by the contract.' },
  { kind: 'not run', match: /^no test of this rule ran$/, why: 'none of their tests ran', how: 'Run the whole suite (no file, --grep or --shard filter).' },
] as const;

export interface Unjudged {
  why: string;
  how: string;
  rules: RuleResult[];
}

/** The skipped MUST and SHOULD rules, grouped by what it would take to judge them. */
export function unjudged(report: ConformanceReport): Unjudged[] {
  const skipped = report.rules.filter((r) => r.level !== 'INFO' && r.verdict === 'skipped');
  const groups = new Map<string, Unjudged>();
  for (const rule of skipped) {
    const reasons = rule.detail.split('\n');
    const kind = UNJUDGED_KINDS.find((k) => reasons.some((reason) => k.match.test(reason)));
    const key = kind?.kind ?? 'other';
    const group = groups.get(key) ?? { why: kind?.why ?? 'of the reasons their tests gave', how: kind?.how ?? 'Read each skipped test\'s reason above.', rules: [] };
    group.rules.push(rule);
    groups.set(key, group);
  }
  const settings = [...new Set(skipped.flatMap((r) => r.detail.split('\n').flatMap((reason) => /^([A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)*) (?:is|are) not set/.exec(reason)?.[1].split(', ') ?? [])))];
  const order = [...UNJUDGED_KINDS.map((k) => k.kind as string), 'other'];
  return [...groups.entries()]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([, group]) => ({ ...group, how: group.how.replace('{settings}', settings.join(', ')) }));
}

const levelCounts = (rules: readonly RuleResult[]) =>
  (['MUST', 'SHOULD'] as const).map((level) => [level, rules.filter((r) => r.level === level).length] as const).filter(([, n]) => n > 0).map(([level, n]) => `${n} ${level}`).join(' and ');

/** The unjudged MUST and SHOULD rules: a count, then a line per kind saying why and how to judge them. */
export function unjudgedLines(report: ConformanceReport): string[] {
  const groups = unjudged(report);
  if (groups.length === 0) return ['Unjudged: none; every MUST and SHOULD rule was judged'];
  return [
    `Unjudged: ${levelCounts(groups.flatMap((g) => g.rules))} rules`,
    ...groups.map((g) => `  ${levelCounts(g.rules)} unjudged: ${g.why} (${g.rules.map((r) => r.id).join(', ')}). ${g.how}`),
  ];
}
