// The annotations a test carries, typed once: the suite writes them, the conformance reporter reads them.
// `skip` is Playwright's own (test.skip with a reason); the rest are the suite's.

export const ANNOTATION = {
  rule: 'rule',
  level: 'level',
  contract: 'contract',
  /** An INFO result: what the server did where the contract leaves it open. */
  observation: 'observation',
  skip: 'skip',
  /** A throttled answer retried after its wait, or a network fault (reset, timeout, 502/503/504) retried with backoff. */
  retry: 'retry',
  /** The server's time when the test started, read from its clock. */
  serverTime: 'server-time',
  /** A use of an operation the contract marks deprecated. */
  deprecatedOperation: 'deprecated-operation',
  /** The target could not be reached: no verdict on the rule. */
  infrastructure: 'infrastructure',
  /** The test ran once more at the end of the run, its first run having had no verdict for a fault of the network. */
  rerun: 'rerun',
  /** The check proved nothing: its control was refused, or the server was still rate-limiting. No verdict, never a pass. */
  inconclusive: 'inconclusive',
  /** `RULE-ID what happened`: a prerequisite the contract guarantees was refused, a failure of that rule. */
  violation: 'violation',
  /**
   * Why a test stopped at a prerequisite a MUST rule guarantees: the test fails (that rule's failure, wherever a
   * report counts tests), and its own rule is unjudged, as though it had skipped with this reason.
   */
  prerequisite: 'prerequisite',
  /** A file of STATE_DIR ignored, or an upload that could not be kept there: no verdict depends on it. */
  warning: 'warning',
  /** What a test's model sequences covered (src/model/coverage.ts), as JSON: the reporter adds up every test's. */
  modelCoverage: 'model-coverage',
  /** What a test of a SHOULD rule found broken (Received, Expected, Hint): the rule's warning; the test itself passes. */
  shouldWarning: 'should-warning',
} as const;

/** A replay's recordings out of date (src/client/recording.ts, src/suite.ts): the suite's own failure, never the server's. */
export const REPLAY_OUT_OF_DATE = /Replay (has no recorded answer|: \d+ recorded interactions)/;

export type AnnotationType = (typeof ANNOTATION)[keyof typeof ANNOTATION];

export interface Annotation {
  type: string;
  description?: string;
}

/** The distinct descriptions of one type; Playwright 1.5x reports the same annotation on a test and on its result. */
export function notesOf(annotations: readonly Annotation[], type: AnnotationType): string[] {
  return [...new Set(annotations.filter((a) => a.type === type).map((a) => a.description ?? ''))];
}
