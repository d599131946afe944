// A rule as a property over its domain: fast-check runs the check on every request of the pairwise cover first, then
// on samples drawn from the seed, and shrinks a failure to the smallest request that still shows it (each dimension
// towards its first, simplest value). The check judges one request; it throws on a violation of the rule.
import fc from 'fast-check';
import { InfrastructureError, type Reply } from '../client/api.ts';
import { ReplayMismatchError } from '../client/transport.ts';
import type { Case } from '../contract/domains.ts';
import { arbitraryOf, pairwise, type Space, variedOf } from '../contract/generate.ts';
import type { RuleId } from '../contract/rules.ts';

/**
 * What one request showed besides a violation (thrown): nothing (the rule held), a reason it could not apply (a
 * replacement path whose shapes are not shown), or a control the contract guarantees that was refused.
 */
export type CaseOutcome = void | { notApplicable: string } | RefusedControl;

/** A request the contract guarantees (`guaranteedBy`) that was refused: the case proves nothing, and that rule fails. */
export interface RefusedControl {
  refusedControl: Reply;
  what: string;
  guaranteedBy: RuleId;
}

export interface PropertyRun {
  seed: number;
  /** The requests of the pairwise cover, and the samples drawn after them. */
  pairwise: number;
  samples: number;
  /** The dimensions that varied in this run. */
  varied: string[];
  notApplicable: string[];
  refusedControl?: RefusedControl;
  /** The smallest request found that breaks the rule, and the error it gave. */
  failure?: { request: Case; shrinks: number; error: unknown };
  /** What stopped the run without a verdict: an unreachable target, a request replay has no recording of. */
  halted?: Error;
}

/** Samples drawn from the seed after the pairwise cover: each run (each commit's seed) tries a few requests more. */
export const SAMPLES = 2;

/** `shrink` false: a failure is reported as the request first found, not the smallest (a run that proves only a verdict). */
export async function checkProperty(space: Space, seed: number, shrink: boolean, check: (request: Case) => Promise<CaseOutcome>): Promise<PropertyRun> {
  const cover = pairwise(space);
  const run: PropertyRun = {
    seed,
    pairwise: cover.length,
    samples: SAMPLES,
    varied: variedOf(space),
    notApplicable: [],
  };
  const property = fc.asyncProperty(arbitraryOf(space), async (request) => {
    // Not a counterexample: nothing more is sent, and the run ends with that error instead of a verdict.
    if (run.halted) return;
    let outcome: CaseOutcome;
    try {
      outcome = await check(request);
    } catch (error) {
      if (!(error instanceof InfrastructureError || error instanceof ReplayMismatchError)) throw error;
      run.halted = error;
      return;
    }
    if (outcome && 'notApplicable' in outcome) run.notApplicable.push(`${describeCase(request, run.varied)}: ${outcome.notApplicable}`);
    if (outcome && 'refusedControl' in outcome) run.refusedControl ??= { ...outcome, what: `${outcome.what} (${describeCase(request, run.varied)})` };
  });
  const result = await fc.check(property, { seed, numRuns: cover.length + SAMPLES, examples: cover.map((request) => [request]), endOnFailure: !shrink });
  if (result.failed && result.counterexample) run.failure = { request: result.counterexample[0], shrinks: result.numShrinks, error: result.errorInstance };
  return run;
}

/** A request by the values of the dimensions that varied: `target=contact, secureFlag=true`. */
export function describeCase(request: Case, varied: readonly string[]): string {
  return varied.map((name) => `${name}=${request[name]}`).join(', ') || 'the one request of the domain';
}
