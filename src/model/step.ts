// The steps of a generated sequence (fast-check's `fc.commands`): each sends its request(s), then judges the answer
// against the model. Composite steps (sweeps, closing steps, steps at once) send and judge through others.
import fc from 'fast-check';
import { type Api } from '../client/api.ts';
import type { RefreshChain } from '../client/refresh-chain.ts';
import type { Target } from '../config/config.ts';
import type { ServerClock } from '../time/server-clock.ts';
import type { Kind } from '../contract/sequences.ts';
import type { Coverage } from './coverage.ts';
import { type Model, type ModelFile, type ModelSession, type ModelToken, NotApplicable } from './model.ts';

/** What the steps act on: the client, the server's clock, the target, and the run's log of requests. */
export interface Real {
  api: Api;
  clock: ServerClock;
  target: Target;
  /** The refresh chain, where a run may spend it (a target put back in its state before each run). */
  chain: RefreshChain | undefined;
  /** Each step of this run as it was sent: the sequence a failure is reported as. */
  log: string[];
  /**
   * Steps "at once" are in flight together (live). A recording sends them one after the other: answers to requests
   * that overlap depend on which the server took first (an upload's slug), and a fixture must be re-made byte for byte.
   */
  overlap: boolean;
  /** What the test's sequences exercised (coverage.ts). */
  coverage: Coverage;
}


/** A step: applicable to the model's state or not, sent, then judged. */
export abstract class Step implements fc.AsyncCommand<Model, Real> {
  /** Its kind of operation; a composite step's are its parts'. */
  abstract readonly kind: Kind | 'composite';
  abstract check(model: Readonly<Model>): boolean;
  abstract toString(): string;
  /** Hears what it was sent in flight with (overlaps.ts: the answers of both steps, live): by default nothing. */
  besides(_sent: readonly unknown[]): void {}

  /** What shrinking may put in this step's place besides dropping it (Sequences.shrink): by default nothing. */
  splits(): Step[][] {
    return [];
  }

  /** Sends its request(s); what it reserves in the model (an upload's number) it takes before its first await. */
  protected abstract send(model: Model, real: Real): Promise<unknown>;
  /** Judges what `send` got against the model, and updates the model. */
  protected abstract judge(model: Model, real: Real, sent: unknown): Promise<void>;

  async run(model: Model, real: Real): Promise<void> {
    await this.judged(model, real, await this.sent(model, real));
  }

  async sent(model: Model, real: Real): Promise<unknown> {
    real.log.push(this.toString());
    if (this.kind !== 'composite') real.coverage.sent(this.kind);
    return this.send(model, real);
  }

  /** A step a correct server may refuse for a reason of its own is not applicable: noted, and the run goes on. */
  async judged(model: Model, real: Real, sent: unknown): Promise<void> {
    try {
      await this.judge(model, real, sent);
    } catch (error) {
      if (!(error instanceof NotApplicable)) throw error;
      real.log.push(`  (not applicable: ${error.message})`);
    }
  }
}


/** The model's token at `index`, wrapping around. */
export const tokenOf = (model: Readonly<Model>, index: number): ModelToken => model.tokens[index % model.tokens.length];


/** The index that picks the file or session the run's last step acted on (Model.focus), whatever there are. */
export const FOCUS = -1;
/** The index that picks the one before the focus in the run's order: the older of two related objects. */
export const BEFORE_FOCUS = -2;

/** A step on one of the run's files or sessions, by an index that wraps around those there are, or FOCUS. */
export abstract class IndexedStep extends Step {
  constructor(readonly index: number) {
    super();
  }

  /** The item of `items` it acts on: by its index, or the focused one (the last of them if none is). */
  protected chosen<T>(items: readonly T[], focused: T | undefined): T {
    if (this.index >= 0) return items[this.index % items.length];
    const at = focused !== undefined && items.includes(focused) ? items.indexOf(focused) : items.length - 1;
    return items[this.index === BEFORE_FOCUS ? Math.max(0, at - 1) : at];
  }

  /** How many there are to choose from: the step applies once there is one. */
  protected abstract among(model: Readonly<Model>): number;

  check(model: Readonly<Model>): boolean {
    return this.among(model) > 0;
  }
}


/** A step made of other steps (a sweep, operations at once): it sends and judges through them. */
export abstract class CompositeStep extends Step {
  readonly kind = 'composite';

  protected send(): Promise<unknown> {
    throw new Error('unreachable: a composite step sends through its steps');
  }

  protected judge(): Promise<void> {
    throw new Error('unreachable: a composite step judges through its steps');
  }
}

/**
 * Steps one after the other, which ones decided as it runs (a sweep over the run's files, a closing step). Shrinking
 * puts the steps it ran last in its place, so that each can then be dropped alone: the shortest sequence holds only
 * the reads, uploads or turns that show the fault, not the whole sweep.
 */
export abstract class StepsInTurn extends CompositeStep {
  #ran: Step[] = [];

  override async run(model: Model, real: Real): Promise<void> {
    this.#ran = [];
    await this.parts(model, real);
  }

  /** Runs its steps, each through `part`. */
  protected abstract parts(model: Model, real: Real): Promise<void>;

  protected async part(step: Step, model: Model, real: Real): Promise<void> {
    this.#ran.push(step);
    await step.run(model, real);
  }

  // The steps of its last run: shrinking asks right after the run that failed.
  override splits(): Step[][] {
    return this.#ran.length > 0 ? [[...this.#ran]] : [];
  }
}

/** One step for each of the files or sessions `among` picks, in order: whatever a later operation did to an earlier one shows. */
export class SweepStep<T extends ModelFile | ModelSession> extends StepsInTurn {
  constructor(
    private readonly what: string,
    private readonly among: (model: Readonly<Model>) => readonly T[],
    private readonly stepAt: (index: number) => Step,
    /** Which of them it takes (all, unless told). */
    private readonly pick: (item: T) => boolean = () => true,
  ) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return this.among(model).some(this.pick);
  }

  toString(): string {
    return this.what;
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    for (const [index, item] of this.among(model).entries()) if (this.pick(item)) await this.part(this.stepAt(index), model, real);
  }
}
