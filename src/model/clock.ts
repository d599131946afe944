// The test clock, moved on or across the change of 30 November 2026.
import { REGIME_INSTANTS } from '../checks/requests.ts';
import { type Model, regimeClass } from './model.ts';
import { type Real, Step } from './step.ts';

/**
 * Where every sequence starts on a test clock: days before the change, whatever the target's clock reads (a machine's
 * clock past the change would leave the model no non-secure upload, and no walk before it), so that a sequence stays
 * before the change until a step moves it across. The recordings start there too.
 */
export const MODEL_START = Date.parse('2026-11-25T12:00:00Z');

/**
 * Moves a test clock on by some seconds, or across the change of 30 November 2026 where it is not yet after it (before
 * it, or within the day whose zone the contract leaves open); never backwards. `or on` applies after the change too,
 * and moves on by a quarter of an hour there: a walk's clock step applies whatever the drawn moves before it did.
 */
export class ClockStep extends Step {
  readonly kind = 'clock';

  constructor(readonly move: number | 'across the change' | 'across the change or on' | { to: number }) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    if (typeof this.move === 'object') return model.movable && model.now < this.move.to;
    return model.movable && (this.move !== 'across the change' || model.regime() !== 'after');
  }

  toString(): string {
    if (typeof this.move === 'object') return `move the test clock on to ${new Date(this.move.to).toISOString()}`;
    return typeof this.move === 'number' ? `move the test clock on by ${this.move} s` : `move the test clock to ${REGIME_INSTANTS.after}${this.move === 'across the change' ? '' : ', or on by 900 s past it'}`;
  }

  protected async send(model: Model, real: Real): Promise<number> {
    real.coverage.event('clock', { regime: regimeClass(model) });
    if (typeof this.move === 'object') return real.clock.set(this.move.to);
    const across = typeof this.move !== 'number' && model.regime() !== 'after';
    const to = across ? Date.parse(REGIME_INSTANTS.after) : model.now + (typeof this.move === 'number' ? this.move : 900) * 1000;
    return real.clock.set(to);
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    model.now = Math.max(model.now, sent as number);
  }
}
