// Generated sequences judged by the model: fast-check draws runs of commands from a profile (fc.commands), runs each
// against the target with a fresh model (fc.asyncModelRun), and shrinks a sequence the model disagrees with to the
// shortest that still breaks the same rule. The result names the rule, the sequence as the requests it sent, the seed.
import fc from 'fast-check';
import { InfrastructureError } from '../client/api.ts';
import { ReplayMismatchError } from '../client/transport.ts';
import { ruleById, type RuleId } from '../contract/rules.ts';
import type { Real, Step } from './step.ts';
import { Disagreement, type Model } from './model.ts';

export interface SequenceOptions {
  seed: number;
  /** Sequences drawn. */
  runs: number;
  /** How long the run may go on, shrinking included, before the shortest sequence so far is reported. */
  timeLimitMs?: number;
  /** false: the first failing sequence is reported as it ran (a run that proves only a verdict). */
  shrink: boolean;
  /**
   * Called after each run that breaks the rule being shrunk, and after the run whose disagreement on another rule is
   * the one reported unless that rule is shrunk too: the last call for a rule is its reported sequence's.
   */
  failing?: (rule: RuleId) => void;
}

/**
 * What a test's sequences are drawn from: operations drawn by weight, at least half as many as `maxCommands`, then
 * the closing steps; or a walk, one operation drawn for each of its positions.
 */
export type Draw = { weighted: fc.Arbitrary<Step>[]; maxCommands: number; closing: Step[] } | { walk: fc.Arbitrary<Step>[] };

export interface SequenceRun {
  seed: number;
  /** Sequences run, shrinking included, and the requests' steps they sent. */
  sequences: number;
  steps: number;
  /** The steps a correct server may refuse, as the log noted them. */
  notApplicable: string[];
  /** The shortest sequence found that breaks a rule: that rule, the steps sent, the model's words. */
  failure?: { rule: RuleId; sequence: string[]; message: string; shrinks: number };
  /** What stopped the run without a verdict: an unreachable target, a request replay has no recording of. */
  halted?: Error;
}

/**
 * Sequences of commands as `Draw` says. fc.commands() has no least length, and its first few runs are short (0, 8 and
 * 2 commands for the first three of one seed): a test of three runs would send next to nothing. asyncModelRun runs an
 * array as it runs fc.commands(): each command whose check() holds, in order; shrinking splits parallel and composite
 * steps and drops commands (each one's own values are kept).
 */
class Sequences extends fc.Arbitrary<Step[]> {
  readonly #drawn: fc.Arbitrary<Step[]>;
  readonly #shrunk: fc.Arbitrary<Step[]>;
  /** How many steps of the sequence that failed last had run when it disagreed (shrinkTo sets it). */
  failedAt: number | undefined;

  constructor(draw: Draw) {
    super();
    if ('walk' in draw) {
      this.#drawn = fc.tuple(...draw.walk);
      this.#shrunk = fc.array(fc.oneof(...draw.walk));
      return;
    }
    const step = fc.oneof(...draw.weighted);
    const drawn = fc.array(step, { minLength: Math.ceil(draw.maxCommands / 2), maxLength: draw.maxCommands, size: 'max' });
    this.#drawn = drawn.map((steps) => [...steps, ...draw.closing]);
    // Splits lengthen a sequence: a sweep of the whole run takes one step per file or session.
    this.#shrunk = fc.array(step);
  }

  generate(random: fc.Random, bias: number | undefined): fc.Value<Step[]> {
    return new fc.Value(this.#drawn.generate(random, bias).value_, undefined);
  }

  canShrinkWithoutContext(value: unknown): value is Step[] {
    return Array.isArray(value);
  }

  /**
   * Each step that can be split first (Step.splits: a parallel step into either step alone, then both in turn; a
   * sweep or closing step into the steps it ran), then commands dropped. A split leaves one parallel or composite step
   * less (a sweep's steps are single requests), so shrinking ends.
   */
  shrink(value: Step[]): fc.Stream<fc.Value<Step[]>> {
    // First the steps up to the one that disagreed: a walk's hundred steps lose their tail in one run.
    const prefix = this.failedAt !== undefined && this.failedAt < value.length ? [value.slice(0, this.failedAt)] : [];
    const splits = value.flatMap((step, i) => step.splits().map((steps) => [...value.slice(0, i), ...steps, ...value.slice(i + 1)]));
    return fc.Stream.of(...[...prefix, ...splits].map((split) => new fc.Value(split, undefined))).join(this.#shrunk.shrink(value, undefined));
  }
}

/**
 * Each sequence starts from `setup`: the target put back where it can be (the reference server, its test clock), a
 * fresh model. A disagreement on `own` is shrunk first; failing that, the first disagreement on another rule is, by the
 * same draws again (the same seed draws the same sequences), so that each is reported with its shortest sequence.
 */
export async function runSequences(draw: Draw, own: RuleId, options: SequenceOptions, setup: () => Promise<{ model: Model; real: Real }>): Promise<SequenceRun> {
  const result: SequenceRun = { seed: options.seed, sequences: 0, steps: 0, notApplicable: [] };
  const other = await shrinkTo(own, draw, options, setup, result);
  if (result.failure || result.halted || other === undefined) return result;
  // Unshrunk, the other rule's first sequence is already at hand: no need to draw it again.
  if (!options.shrink) result.failure = { rule: other.error.rule, sequence: other.log, message: other.error.message, shrinks: 0 };
  else await shrinkTo(other.error.rule, draw, options, setup, result);
  return result;
}

/** One fast-check run that fails on disagreements with `rule` only; answers the first other disagreement and its sequence. */
async function shrinkTo(rule: RuleId, draw: Draw, options: SequenceOptions, setup: () => Promise<{ model: Model; real: Real }>, result: SequenceRun): Promise<{ error: Disagreement; log: string[] } | undefined> {
  let other: { error: Disagreement; log: string[] } | undefined;
  let found: { error: Disagreement; log: string[] } | undefined;
  const sequences = new Sequences(draw);
  // fast-check's time limit gives up on a run in flight (a race with a timer) and leaves it going: its requests would
  // meet the next sequence's, or the next test's, on the same server (a clock put back, files uploaded, a session
  // begun). So each run's steps end at the same limit, and the run is waited for before anything else is sent.
  const deadline = options.timeLimitMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeLimitMs;
  let inFlight: Promise<unknown> = Promise.resolve();
  const property = fc.asyncProperty(sequences, (sequence) => {
    const run = runOne(sequence);
    inFlight = run.catch(() => undefined);
    return run;
  });
  const runOne = async (sequence: Step[]) => {
    if (result.halted) return;
    const { model, real } = await setup();
    result.sequences += 1;
    // Each step numbered as it runs: a disagreement notes how far the sequence had gone.
    const numbered = sequence.map((step, i): fc.AsyncCommand<Model, Real> => ({
      check: (state) => Date.now() < deadline && step.check(state),
      run: async (state, actual) => {
        model.ran = i + 1;
        await step.run(state, actual);
      },
      toString: () => step.toString(),
    }));
    try {
      await fc.asyncModelRun(() => ({ model, real }), numbered);
    } catch (error) {
      if (error instanceof InfrastructureError || error instanceof ReplayMismatchError) {
        result.halted = error;
        return;
      }
      if (!(error instanceof Disagreement)) throw error;
      model.note(error);
    } finally {
      real.coverage.reached(model);
      result.steps += real.log.filter((line) => !line.startsWith('  ')).length;
      result.notApplicable.push(...real.log.filter((line) => line.startsWith('  (not applicable')).map((line) => line.trim()));
    }
    const broken = model.noted.find((disagreement) => disagreement.rule === rule);
    // The other rule to shrink to: a MUST rule's before any SHOULD rule's, which is a warning only.
    const must = model.noted.find((disagreement) => disagreement.rule !== rule && ruleById(disagreement.rule).level === 'MUST');
    const first = must ?? model.noted.find((disagreement) => disagreement.rule !== rule);
    if (first && (other === undefined || (ruleById(other.error.rule).level !== 'MUST' && must))) {
      other = { error: first, log: [...real.log] };
      options.failing?.(first.rule);
    }
    if (broken === undefined) return;
    // Each failing run while shrinking is shorter than the one before: the last is the shortest.
    sequences.failedAt = broken.at;
    found = { error: broken, log: [...real.log] };
    options.failing?.(rule);
    throw broken;
  };
  const run = await fc.check(property, { seed: options.seed, numRuns: options.runs, interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false, endOnFailure: !options.shrink });
  await inFlight;
  if (run.failed && found) result.failure = { rule, sequence: found.log, message: found.error.message, shrinks: run.numShrinks };
  else if (run.failed && run.errorInstance) throw run.errorInstance;
  return other;
}

/** A sequence as the report shows it: one numbered request a line, the model's notes indented. */
export const describeSequence = (sequence: readonly string[]) => {
  let n = 0;
  return sequence.map((line) => (line.startsWith('  ') ? `   ${line}` : `${String(++n).padStart(2)}. ${line}`)).join('\n');
};
