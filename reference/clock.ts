/** Every time rule of the reference server reads this clock, never Date.now() directly. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * How a test clock behaves once set, where the contract and the test-clock protocol are silent: frozen until told
 * to move; running on in real time from the instant it was set (an offset from real time); running with whole-second
 * resolution, every reading and every rule floored to the second; or running, started weeks ahead of the instant
 * it was given (a clock skewed from real time).
 */
export const CLOCK_HABITS = ['frozen', 'running', 'whole-second', 'skewed'] as const;
export type ClockHabit = (typeof CLOCK_HABITS)[number];

/** How far ahead a skewed clock starts: past the change of 30 November 2026 from any day of its week. */
export const SKEW_MS = 21 * 24 * 3600_000;

/** A test clock that moves when told to and, but for a frozen one, runs on in real time (`realNow`) in between. */
export class TestClock implements Clock {
  /** The instant last set, and the real time it was set at. */
  #at: number;
  #setAt: number;

  constructor(
    start: number,
    readonly habit: ClockHabit = 'frozen',
    private readonly realNow: () => number = Date.now,
  ) {
    this.#at = habit === 'skewed' ? start + SKEW_MS : start;
    this.#setAt = realNow();
  }

  /** The precise instant, before a whole-second clock floors it. */
  #precise(): number {
    return this.habit === 'frozen' ? this.#at : this.#at + (this.realNow() - this.#setAt);
  }

  now(): number {
    const precise = this.#precise();
    return this.habit === 'whole-second' ? Math.floor(precise / 1000) * 1000 : precise;
  }

  set(epochMs: number): void {
    this.#at = epochMs;
    this.#setAt = this.realNow();
  }

  advance(seconds: number): void {
    this.set(this.#precise() + seconds * 1000);
  }
}
