// The server's clock decides every time-bound expectation, never the clock of this machine.
import { SECURE_CUTOVER_DATE } from '../contract/contract.ts';
import type { Incoming, Transport } from '../client/transport.ts';

/**
 * §4.1 rule 6 says "from 30 November 2026" without a time zone. Midnight of that date falls between
 * 29 Nov 10:00Z (UTC+14) and 30 Nov 12:00Z (UTC−12): before the first instant every reading says
 * "before", from the second every reading says "from"; in between the regime is only observed (INFO).
 */
export const CUTOVER_EARLIEST = Date.parse(`${SECURE_CUTOVER_DATE}T00:00:00+14:00`);
export const CUTOVER_LATEST = Date.parse(`${SECURE_CUTOVER_DATE}T00:00:00-12:00`);

export type Regime = 'before' | 'after' | 'ambiguous';

export function regimeAt(epochMs: number): Regime {
  if (epochMs < CUTOVER_EARLIEST) return 'before';
  if (epochMs >= CUTOVER_LATEST) return 'after';
  return 'ambiguous';
}

export class ServerClock {
  /** The test clock's reading when the test began (begin()), and whether the test moved it since. */
  #began: number | undefined;
  #moved = false;
  #moves = 0;
  #lastSet = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly transport: Transport,
    private readonly baseUrl: string,
    private readonly testClockUrl: string | undefined,
  ) {}

  /** Reads the test clock as the test begins: the instant a test returns to, read once rather than once by each. */
  async begin(): Promise<number> {
    this.#began = await this.now();
    return this.#began;
  }

  /** The test clock's instant when the test began, else the server's now. */
  async startOrNow(): Promise<number> {
    return this.#began ?? this.now();
  }

  /** How many times set() or advance() moved the test clock, ever: a step tells whether it moved while it ran. */
  get moves(): number {
    return this.#moves;
  }

  /**
   * The instant the last move set the test clock to, by its answer: a step in flight with that move may have been taken
   * as late. Not the latest of all: a test puts its clock back (before each sequence of the model, say).
   */
  get lastSet(): number {
    return this.#lastSet;
  }

  /** Whether set() or advance() moved the test clock since begin(). */
  get moved(): boolean {
    return this.#moved;
  }

  /** True when the target serves the test-clock protocol, so the suite may move time. */
  get movable(): boolean {
    return this.testClockUrl !== undefined;
  }

  /** The server's now: its test clock, else the Date header of a response (1 s resolution). */
  async now(): Promise<number> {
    if (this.testClockUrl) return this.read(await this.transport.fetch({ method: 'GET', url: this.testClockUrl, headers: {}, unpaced: true }));
    const response = await this.transport.fetch({ method: 'HEAD', url: this.baseUrl, headers: {}, maxRedirects: 0 });
    const date = response.headers.date;
    if (!date || Number.isNaN(Date.parse(date))) {
      throw new Error(`the server sent no usable Date header (HEAD ${this.baseUrl} answered ${response.status}); its clock cannot be read`);
    }
    return Date.parse(date);
  }

  /** Keeps the next `requests` paced requests back to back: those of a check that follows a move of the clock, no pace before them. */
  reserve(requests: number): Promise<void> {
    return this.transport.reserve(requests);
  }

  /** Setting the clock to an instant twice sets it once: a network fault may send it again. */
  async set(epochMs: number): Promise<number> {
    return this.post({ now: new Date(epochMs).toISOString() }, true);
  }

  async advance(seconds: number): Promise<number> {
    return this.post({ advanceSeconds: seconds });
  }

  private async post(data: { now: string } | { advanceSeconds: number }, idempotent?: true): Promise<number> {
    if (!this.testClockUrl) throw new Error('the target has no test clock (TEST_CLOCK_URL is not set)');
    this.#moved = true;
    this.#moves += 1;
    const now = this.read(await this.transport.fetch({ method: 'POST', url: this.testClockUrl, headers: {}, data, idempotent, unpaced: true }));
    this.#lastSet = now;
    return now;
  }

  private read(response: Incoming): number {
    let body: { now?: unknown } | undefined;
    try {
      body = JSON.parse(response.body.toString('utf8')) as { now?: unknown };
    } catch {
      body = undefined;
    }
    const now = typeof body?.now === 'string' ? Date.parse(body.now) : Number.NaN;
    if (response.status !== 200 || Number.isNaN(now)) {
      throw new Error(`the test clock at ${this.testClockUrl} answered ${response.status} without {"now": "<ISO-8601>"}`);
    }
    return now;
  }
}
