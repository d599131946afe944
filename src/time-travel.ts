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

  /** Puts the server in a regime of the dated change: jumps there with a test clock, else skips unless already in it. */
  async ensureRegime(wanted: Exclude<Regime, 'ambiguous'>, jumpTarget: string): Promise<void> {
    if (this.clock.movable) return this.jumpTo(jumpTarget);
    const now = await this.clock.now();
    const regime = regimeAt(now);
    test.skip(regime !== wanted, `the server's date ${new Date(now).toISOString()} is ${regime} the change of 30 November 2026; this check needs ${wanted}`);
  }
}
