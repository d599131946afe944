// A file another run is still writing, read once it is there: a test or a proof may start beside the run whose
// verdicts it judges or compares with (CI's npm test starts beside its one recording) and read them when it needs them.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a file may take to appear: a whole live run of the suite, on a machine busy with others. */
export const WRITTEN_WITHIN_MS = 10 * 60_000;

/** The text of `file` once it exists (a report is written whole: src/report/conformance-reporter.ts); a file that never comes is named. */
export async function whenWritten(file: string, what: string, withinMs = WRITTEN_WITHIN_MS): Promise<string> {
  for (const started = Date.now(); !existsSync(file); await sleep(1000)) {
    if (Date.now() - started > withinMs) throw new Error(`${file} was not written within ${withinMs / 60_000} minutes: ${what} did not finish`);
  }
  return readFileSync(file, 'utf8');
}
