// How a test reaches the instant it needs: the target's test clock when it has one, real waiting in the
// opt-in slow project, else a skip that says why. Expectations always follow the server's clock.
import { test } from '@playwright/test';
import { type Regime, regimeAt, type ServerClock } from './server-clock.ts';

export type TimeTravelMode = 'test-clock' | 'wait';

export class TimeTravel {
  constructor(
    private readonly clock: ServerClock,
    private readonly mode: TimeTravelMode,
  ) {}

  /** Moves the server to an instant; only a test clock can, so otherwise the test skips. */
  async jumpTo(iso: string): Promise<void> {
    test.skip(!this.clock.movable, `needs the server at ${iso}: only a target with a test clock (TEST_CLOCK_URL) can be moved there`);
    await this.clock.set(Date.parse(iso));
  }

  /** Lets `seconds` pass on the server: moving its test clock, or really waiting in the slow project. */
  async pass(seconds: number): Promise<void> {
    if (this.clock.movable) {
      await this.clock.advance(seconds);
      return;
    }
    test.skip(this.mode !== 'wait', `needs ${seconds} s to pass on the server: set TEST_CLOCK_URL, or run the slow project (SUITE_SLOW=1) that really waits`);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }

  /**
   * How far from an edge of a time window a check stands: a second with a test clock, which does not run; half a
   * minute with a clock that runs (the Date header has a one-second resolution and requests take time).
   */
  get margin(): number {
    return this.clock.movable ? 1 : 30;
  }

  /** True when the server can be moved far (a day, a month): only a test clock can, the slow project cannot wait that long. */
  get farReachable(): boolean {
    return this.clock.movable;
  }

  /** A timeline from now (an upload): `to(s)` moves the server forward to `s` seconds after it. */
  timeline(): { to(seconds: number): Promise<void> } {
    let at = 0;
    return {
      to: async (seconds: number) => {
        if (seconds < at) throw new Error(`the timeline only moves forward: ${seconds} s is before ${at} s`);
        await this.pass(seconds - at);
        at = seconds;
      },
    };
  }

  /** Puts the server in a regime of the dated change: jumps there with a test clock, else skips unless already in it. */
  async ensureRegime(wanted: Exclude<Regime, 'ambiguous'>, jumpTarget: string): Promise<void> {
    if (this.clock.movable) return this.jumpTo(jumpTarget);
    const now = await this.clock.now();
    const regime = regimeAt(now);
    test.skip(regime !== wanted, `the server's date ${new Date(now).toISOString()} is ${regime} the change of 30 November 2026; this check needs ${wanted}`);
  }
}
