// Politeness towards a live target: a rate limit per worker (the shards of a run, and the workers of a shard, share
// the configured budget) and bounded retries of 429 and 503 answers after their Retry-After. Real time here, not the
// server's clock: this is about how hard the suite leans on the server, not about what the contract says of time.
import type { SuiteConfig } from '../config/config.ts';

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

/** Requests per RATE_WINDOW_MS for each worker, and for the whole shard (`--shard=i/n`; else the whole run). */
export interface RateShare {
  worker: number;
  shard: number;
}

/**
 * Each worker's share of RATE_LIMIT, all shards and their workers together, or undefined when nothing is limited
 * (replay, the in-process reference server). Shards run on machines that cannot see each other, so each takes its
 * fraction up front. A worker sends at least 1: a RATE_LIMIT below shards × workers is then exceeded, and
 * `describeRateShare` says so.
 */
export function rateShare(config: Pick<SuiteConfig, 'rateLimit' | 'mode' | 'target'>, shards: number, workers: number): RateShare | undefined {
  if (config.target === undefined || config.mode === 'replay') return undefined;
  const worker = Math.max(1, Math.floor(config.rateLimit / (shards * workers)));
  return { worker, shard: worker * workers };
}

/** One line for the start of a run: the budget this shard and each of its workers keep to. */
export function describeRateShare(rateLimit: number, share: RateShare, shard: { current: number; total: number } | null, workers: number): string {
  const shards = shard?.total ?? 1;
  const over = share.shard * shards > rateLimit ? `; more than RATE_LIMIT=${rateLimit} in all, since each worker sends at least 1` : '';
  const whole = shard === null ? 'this run' : `shard ${shard.current}/${shard.total}`;
  const shared = shard === null ? '' : ` shared by ${shards} shards`;
  return `Rate limit: ${whole} sends at most ${share.shard} requests per ${RATE_WINDOW_MS / 1000} s (RATE_LIMIT=${rateLimit}${shared}), ${share.worker} per worker × ${workers}${over}`;
}

const MAX_WAIT_SECONDS = 60;

/** Seconds to wait before retry `attempt` (0-based): the server's Retry-After (seconds or a date), else 1, 2, 4… */
export function retryDelaySeconds(retryAfter: string | undefined, attempt: number, now = Date.now()): number {
  const seconds = retryAfter === undefined ? Number.NaN : /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : (Date.parse(retryAfter) - now) / 1000;
  const wait = Number.isNaN(seconds) ? 2 ** attempt : seconds;
  return Math.min(MAX_WAIT_SECONDS, Math.max(0, Math.ceil(wait)));
}

export const RETRIED_STATUSES = new Set([429, 503]);

export { sleep };
