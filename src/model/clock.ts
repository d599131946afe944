// The test clock, moved on or across the change of 30 November 2026.
import { REGIME_INSTANTS } from '../checks/requests.ts';
import { type Model } from './model.ts';
import { type Real, Step } from './step.ts';


/** Moves a test clock on by some seconds, or across the change of 30 November 2026; never backwards. */
export class ClockStep extends Step {
  readonly kind = 'clock';

  constructor(readonly move: number | 'across the change') {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return model.movable && (this.move !== 'across the change' || model.regime() === 'before');
  }

  toString(): string {
    return this.move === 'across the change' ? `move the test clock to ${REGIME_INSTANTS.after}` : `move the test clock on by ${this.move} s`;
  }

  protected async send(model: Model, real: Real): Promise<number> {
    const to = this.move === 'across the change' ? Date.parse(REGIME_INSTANTS.after) : model.now + this.move * 1000;
    return real.clock.set(to);
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    model.now = Math.max(model.now, sent as number);
  }
}
