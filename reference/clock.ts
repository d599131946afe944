/** Every time rule of the reference server reads this clock, never Date.now() directly. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A frozen clock that only moves when told to, so recordings and time-bound tests are deterministic. */
export class TestClock implements Clock {
  #now: number;

  constructor(start: number) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  set(epochMs: number): void {
    this.#now = epochMs;
  }

  advance(seconds: number): void {
    this.#now += seconds * 1000;
  }
}
