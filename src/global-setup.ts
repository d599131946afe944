// Once per run, before any worker: the rate limit this shard keeps to (and, at the end, the pace the server allowed),
// the preflight of a live target (so that a run no verdict of which could mean anything stops with one line per
// problem rather than a failure per test), reports of this run only, and, for a recording, an empty fixtures folder
// so that no stale file survives. The preflight is pointless where the suite starts its own reference server (the
// default run, the recording, the mutation run): its world comes from the seed, and a mutation run's servers are
// broken on purpose.
import type { FullConfig } from '@playwright/test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, replayNotice, suiteConfig } from './config/config.ts';
import { describePreflight, keptStateToCheck, nothingToCheck, preflight, preflightPace } from './preflight/doctor.ts';
import { describePace, describeRateShare, handOver, noneSent, paceFile, rateShare } from './client/politeness.ts';
import { REPRODUCERS } from './client/reproducer.ts';
import { referenceProblems } from './reference-server.ts';

export default async function globalSetup(playwright: FullConfig): Promise<() => void> {
  const config = suiteConfig();
  const problems = config.reference ? await referenceProblems(config.reference) : [];
  if (problems.length > 0) throw new ConfigError(problems);
  const notice = replayNotice(config);
  if (notice) console.log(notice);
  const share = rateShare(config, playwright.shard?.total ?? 1, playwright.workers);
  if (share) console.log(describeRateShare(config.rateLimit, share, playwright.shard, playwright.workers));
  console.log(`Generated requests: seed ${config.generator.seed} (${config.generator.from})`);
  // Before the preflight, so that a run it stops leaves none of an earlier run's results either.
  // Allure adds results to its folder and never removes any: a report of it would show earlier runs' results as
  // retries of this run's tests. A blob report is written by sharded runs only; an older one is not this run's.
  rmSync(join(config.reportsDir, 'allure-results'), { recursive: true, force: true });
  if (!playwright.shard) rmSync(join(config.reportsDir, 'blob'), { recursive: true, force: true });
  // A reproducer left by an earlier run would stand for a failure this run may not have.
  if (!playwright.shard) rmSync(join(config.reportsDir, REPRODUCERS), { recursive: true, force: true });
  // SKIP_PREFLIGHT=1 (CI's shards, after one preflight of their own) still asks whether the server holds what STATE_DIR
  // keeps of it, where it keeps some: a shard's state is its own, and a server reset since must not fail on it.
  let sentBefore = noneSent();
  if (nothingToCheck(config) === undefined && (!config.skipPreflight || keptStateToCheck(config))) {
    // Before the workers start, the preflight may use the whole shard's budget; its requests count in their first window.
    const pace = preflightPace(config, share?.shard ?? config.rateLimit);
    const result = await preflight(config, pace, config.skipPreflight);
    sentBefore = pace.recent();
    const lines = describePreflight(config, result);
    if (result.problems.length > 0) {
      const stop = new Error([...lines, 'Fix these, or set SKIP_PREFLIGHT=1 to run the suite anyway.'].join('\n'));
      // The lines are the whole message: a stack trace would only bury them.
      stop.stack = stop.message;
      throw stop;
    }
    // Skipped, the preflight speaks only of a server that lost what STATE_DIR keeps: no all-clear it did not check.
    if (!config.skipPreflight || result.findings.length > 0) console.log(lines.join('\n'));
  }
  if (config.mode === 'record') rmSync(config.fixturesDir, { recursive: true, force: true });
  // The pace the workers share starts at the ceiling; at the end, the run says how far the server made it slow down.
  handOver(paceFile(config.reportsDir), sentBefore);
  return () => {
    const pace = share && describePace(paceFile(config.reportsDir), share.shard);
    if (pace) console.log(`\n${pace}`);
  };
}
