// Two steps at once.
import { type Model } from './model.ts';
import { ContinueStep } from './sessions.ts';
import { type Real, Step, CompositeStep } from './step.ts';

/** Two sessions' turns, or two uploads, at once. */
export class ParallelStep extends CompositeStep {
  constructor(readonly steps: readonly [Step, Step]) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    const [a, b] = this.steps;
    if (!a.check(model) || !b.check(model)) return false;
    // Two turns of one session at once are not two sessions' turns: §3 says nothing of them.
    return !(a instanceof ContinueStep && b instanceof ContinueStep) || a.index % model.sessions.length !== b.index % model.sessions.length;
  }

  toString(): string {
    return `at once: [${this.steps.map(String).join('] and [')}]`;
  }

  // Either step alone, then both one after the other: an overlap that is not needed is not reported.
  override splits(): Step[][] {
    return [[this.steps[0]], [this.steps[1]], [...this.steps]];
  }

  override async run(model: Model, real: Real): Promise<void> {
    const at = real.log.length;
    const sent = real.overlap ? await Promise.all(this.steps.map((step) => step.sent(model, real))) : [await this.steps[0].sent(model, real), await this.steps[1].sent(model, real)];
    real.log.splice(at, this.steps.length, `at once: [${real.log.slice(at, at + this.steps.length).join('] and [')}]`);
    // Each answer is judged on the state before the other's: the model allows them in either order.
    for (const [i, step] of this.steps.entries()) await step.judged(model, real, sent[i]);
  }
}
