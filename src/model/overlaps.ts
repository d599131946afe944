// Steps at once, judged by linearisability (Hughes et al., QuickCheck's parallel state-machine testing): their
// answers are accepted when some order of them, applied to the model one after the other, explains them all.
import { Disagreement, type Model } from './model.ts';
import { type Real, Step, CompositeStep } from './step.ts';

/** Orders compared position by position, as numbers: the given order (ascending) sorts first whatever n is. */
function byPositions(a: readonly number[], b: readonly number[]): number {
  const at = a.findIndex((x, i) => x !== b[i]);
  return at < 0 ? 0 : a[at] - b[at];
}

/** Every order of the indices 0..n-1, the given order first. */
function ordersOf(n: number): number[][] {
  if (n <= 1) return [Array.from({ length: n }, (_, i) => i)];
  return ordersOf(n - 1).flatMap((order) => Array.from({ length: n }, (_, at) => [...order.slice(0, at), n - 1, ...order.slice(at)])).sort(byPositions);
}

/** Any two or more steps in flight together. */
export class ParallelStep extends CompositeStep {
  constructor(readonly steps: readonly Step[]) {
    super();
    if (steps.length < 2) throw new Error('ParallelStep: two steps at least');
  }

  check(model: Readonly<Model>): boolean {
    return this.steps.every((step) => step.check(model));
  }

  toString(): string {
    return `at once: [${this.steps.map(String).join('] and [')}]`;
  }

  // Each step left out (the others at once, or alone), then all one after the other: an overlap that is not needed,
  // or a member of it, is not reported.
  override splits(): Step[][] {
    const without = this.steps.map((_, i) => this.steps.filter((__, j) => j !== i));
    return [...without.map((rest) => (rest.length === 1 ? rest : [new ParallelStep(rest)])), [...this.steps]];
  }

  override async run(model: Model, real: Real): Promise<void> {
    const at = real.log.length;
    const n = this.steps.length;
    real.coverage.atOnce(this.steps.map((step) => step.kind));
    const sent: unknown[] = [];
    if (real.overlap) sent.push(...(await Promise.all(this.steps.map((step) => step.sent(model, real)))));
    else for (const step of this.steps) sent.push(await step.sent(model, real));
    real.log.splice(at, n, `at once: [${real.log.slice(at, at + n).join('] and [')}]`);
    if (real.overlap) for (const step of this.steps) step.besides(sent);
    const back = model.checkpoint();
    const logged = real.log.length;
    for (const order of ordersOf(n)) {
      if (await this.#explains(order, model, real, sent)) return;
      back();
      real.log.length = logged;
    }
    // No order explains every answer: the given order's disagreements stand, judged once more to be reported.
    for (const [i, step] of this.steps.entries()) await step.judged(model, real, sent[i]);
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
