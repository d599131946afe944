// Politeness towards a live target: a rate limit per worker (the workers share the configured budget) and
// bounded retries of 429 and 503 answers after their Retry-After. Real time here, not the server's clock:
// this is about how hard the suite leans on the server, not about what the contract says of time.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** At most `max` requests in any `windowMs`; acquire() waits for a slot. */
export class RateLimiter {
  readonly #sent: number[] = [];

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  async acquire(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.#sent.length > 0 && this.#sent[0] <= now - this.windowMs) this.#sent.shift();
      if (this.#sent.length < this.max) {
        this.#sent.push(now);
        return;
      }
      await sleep(this.#sent[0] + this.windowMs - now);
    }
  }
}

/** The window of the platform's rate limit: 100 requests per 10 s per app and location. */
export const RATE_WINDOW_MS = 10_000;
const MAX_WAIT_SECONDS = 60;

/** Seconds to wait before retry `attempt` (0-based): the server's Retry-After (seconds or a date), else 1, 2, 4… */
export function retryDelaySeconds(retryAfter: string | undefined, attempt: number, now = Date.now()): number {
  const seconds = retryAfter === undefined ? Number.NaN : /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : (Date.parse(retryAfter) - now) / 1000;
  const wait = Number.isNaN(seconds) ? 2 ** attempt : seconds;
  return Math.min(MAX_WAIT_SECONDS, Math.max(0, Math.ceil(wait)));
}

export const RETRIED_STATUSES = new Set([429, 503]);

export { sleep };
