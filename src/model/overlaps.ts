// Two steps at once, judged by linearisability (Hughes et al., QuickCheck's parallel state-machine testing): their
// answers are accepted when some order of the two, applied to the model one after the other, explains both.
import { Disagreement, type Model } from './model.ts';
import { type Real, Step, CompositeStep } from './step.ts';

/** Any two steps in flight together. */
export class ParallelStep extends CompositeStep {
  constructor(readonly steps: readonly [Step, Step]) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return this.steps.every((step) => step.check(model));
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
    real.coverage.atOnce(this.steps.map((step) => step.kind));
    const sent = real.overlap ? await Promise.all(this.steps.map((step) => step.sent(model, real))) : [await this.steps[0].sent(model, real), await this.steps[1].sent(model, real)];
    real.log.splice(at, this.steps.length, `at once: [${real.log.slice(at, at + this.steps.length).join('] and [')}]`);
    if (real.overlap) for (const step of this.steps) step.besides(sent);
    const back = model.checkpoint();
    const logged = real.log.length;
    for (const order of [[0, 1], [1, 0]]) {
      if (await this.#explains(order, model, real, sent)) return;
      back();
      real.log.length = logged;
    }
    // No order explains both answers: the first order's disagreements stand, judged once more to be reported.
    for (const i of [0, 1]) await this.steps[i].judged(model, real, sent[i]);
  }

  /** Whether judging the answers in this order leaves no disagreement. */
  async #explains(order: number[], model: Model, real: Real, sent: unknown[]): Promise<boolean> {
    const noted = model.noted.length;
    try {
      for (const i of order) await this.steps[i].judged(model, real, sent[i]);
    } catch (error) {
      if (error instanceof Disagreement) return false;
      throw error;
    }
    return model.noted.length === noted;
  }
}
