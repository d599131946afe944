// Politeness towards a live target: a pace per worker (the shards of a run, and the workers of a shard, share the
// configured ceiling), lowered for the whole run when the server says it is too fast and recovered slowly, and the
// waits a throttled answer asks for. Real time here, not the server's clock: this is about how hard the suite leans on
// the server, not about what the contract says of time; a server's own dates are read against its own Date header.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SuiteConfig } from '../config/config.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The window of the platform's rate limit: 100 requests per 10 s per app and location. */
export const RATE_WINDOW_MS = 10_000;

/**
 * The two windows a request counts in, each kept to the ceiling. The platform's limit is per app and location: a GET
 * or HEAD with no credential (a file's URL as handed out, a signed URL, a read with no token) names neither, and counts
 * in a window of its own; every other request counts in the credentialed one, whichever token it carries, since the
 * suite cannot tell which of the run's tokens share an app. A throttled answer in either slows both.
 */
export const BUCKETS = ['credentialed', 'anonymous'] as const;
export type Bucket = (typeof BUCKETS)[number];
export const bucketOf = (method: string, headers: Record<string, string | undefined>): Bucket =>
  (method === 'GET' || method === 'HEAD') && !Object.keys(headers).some((name) => name.toLowerCase() === 'authorization') ? 'anonymous' : 'credentialed';
export type Sent = Record<Bucket, number[]>;
/** Each window's instants, as `of` gives them. */
const perBucket = (of: (bucket: Bucket) => number[]): Sent => Object.fromEntries(BUCKETS.map((bucket) => [bucket, of(bucket)])) as Sent;
export const noneSent = (): Sent => perBucket(() => []);

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
  return `Rate limit: ${whole} sends at most ${share.shard} requests per ${RATE_WINDOW_MS / 1000} s (RATE_LIMIT=${rateLimit}${shared}), ${share.worker} per worker × ${workers}${over}; as many again of GETs with no credential (the files' URLs)`;
}

const MAX_WAIT_SECONDS = 60;
/** After a throttled answer the pace climbs back by this fraction of the ceiling per window: slowly. */
const RECOVERY_PER_WINDOW = 0.1;
/** Of a limit the server announces, the suite uses this much: its count and the server's never line up exactly. */
const ANNOUNCED_MARGIN = 0.8;

/** The headers of an answer, lower-case, as both transports give them. */
type Headers = Record<string, string | undefined>;

const header = (headers: Headers, ...names: string[]) => names.map((name) => headers[name]).find((value) => value !== undefined && value.trim() !== '');

/** The server's now by its own Date header, else this machine's: a server's dates are compared with its own clock. */
const serverNow = (headers: Headers, now: number) => {
  const date = Date.parse(header(headers, 'date') ?? '');
  return Number.isNaN(date) ? now : date;
};

/** RFC 9110 §10.2.3: Retry-After is delay-seconds or an HTTP-date, read against the answer's Date (a test clock may be anywhere). */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = header(headers, 'retry-after')?.trim();
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : (at - serverNow(headers, now)) / 1000;
}

/** What `X-RateLimit-*` or `RateLimit-*` headers (IETF draft, both its forms) say, where a server sends them. */
export interface AnnouncedLimit {
  limit?: number;
  remaining?: number;
  /** Seconds until the window resets. */
  resetSeconds?: number;
  windowSeconds?: number;
}

export function announcedLimit(headers: Headers, now = Date.now()): AnnouncedLimit | undefined {
  const number = (value: string | undefined) => (value !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : undefined);
  const combined = Object.fromEntries(
    (header(headers, 'ratelimit') ?? '').split(/[,;]/).map((part) => part.trim().split('=')).filter((pair) => pair.length === 2).map(([k, v]) => [k.trim().toLowerCase(), v.trim()]),
  ) as Record<string, string>;
  const limit = number(header(headers, 'x-ratelimit-limit', 'x-ratelimit-max', 'ratelimit-limit') ?? combined.limit);
  const remaining = number(header(headers, 'x-ratelimit-remaining', 'ratelimit-remaining') ?? combined.remaining ?? combined.r);
  const reset = number(header(headers, 'x-ratelimit-reset', 'ratelimit-reset') ?? combined.reset ?? combined.t);
  const intervalMs = number(header(headers, 'x-ratelimit-interval-milliseconds'));
  const policyWindow = number(/\bw=(\d+)/.exec(header(headers, 'ratelimit-policy', 'x-ratelimit-policy') ?? '')?.[1]);
  if (limit === undefined && remaining === undefined) return undefined;
  // A reset past a billion is an instant in epoch seconds (GitHub's form), read against the answer's Date; else a delay.
  const resetSeconds = reset === undefined ? undefined : reset > 1e9 ? reset - serverNow(headers, now) / 1000 : reset;
  return { limit, remaining, resetSeconds, windowSeconds: intervalMs !== undefined ? intervalMs / 1000 : policyWindow };
}

/** A wait in seconds, never negative nor past MAX_WAIT_SECONDS, whatever a server's clock says. */
const bounded = (seconds: number) => Math.min(MAX_WAIT_SECONDS, Math.max(0, seconds));

/**
 * Seconds to wait after a throttled answer, retry `attempt` (0-based): its Retry-After, else the reset its rate
 * headers announce, else 2, 4, 8… of its own (together past a window of 10 s, the platform's, which the first three
 * retries must outlast).
 */
export function throttleWaitSeconds(headers: Headers, attempt: number, now = Date.now()): number {
  const told = retryAfterSeconds(headers, now) ?? announcedLimit(headers, now)?.resetSeconds;
  return Math.ceil(bounded(told ?? 2 ** (attempt + 1)));
}

/** The pace of the whole run, shared by its workers through one small file: when to send again, and how fast. */
interface PaceState {
  /** No request before this instant (this machine's clock, which all workers share). */
  pausedUntil: number;
  /** The fraction of the ceiling in force at `since`; it climbs back from there. */
  factor: number;
  since: number;
  /** Throttled answers of the run, and the lowest fraction the pace fell to. */
  throttles: number;
  lowest: number;
  /** When the requests of the run's setup (the preflight) were sent: the workers' windows start with them. */
  handover: Sent;
}

const FULL: PaceState = { pausedUntil: 0, factor: 1, since: 0, throttles: 0, lowest: 1, handover: noneSent() };

/** Where the workers of one run (on one machine) share its pace: beside its reports, emptied by the global setup. */
export const paceFile = (reportsDir: string) => join(reportsDir, 'pace.json');

/**
 * Where a worker's slot keeps its requests of the last window: Playwright replaces a worker after a failed test, and
 * its successor in the slot (the same parallelIndex) starts with them, not with an empty window.
 */
export const slotFile = (reportsDir: string, slot: number) => join(reportsDir, `pace-worker-${slot}.json`);

function readSent(file: string | undefined): Sent {
  if (file === undefined) return noneSent();
  try {
    return sentOf(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return noneSent();
  }
}

/** Each window's instants, whatever a file held. */
const sentOf = (value: unknown): Sent =>
  perBucket((bucket) => {
    const sent = (value as Partial<Record<Bucket, unknown>> | undefined)?.[bucket];
    return Array.isArray(sent) ? sent.filter((at): at is number => typeof at === 'number') : [];
  });

/** The run's pace as the last worker left it, or undefined when no worker ever had to slow down. */
export function readPace(file: string): PaceState | undefined {
  try {
    return { ...FULL, ...(JSON.parse(readFileSync(file, 'utf8')) as Partial<PaceState>) };
  } catch {
    return undefined;
  }
}

/**
 * Leaves a fresh pace for the workers, holding the setup's requests of the last window (`pace.recent()`): without them
 * the workers' first window would start empty, and the run would send the preflight's requests beyond RATE_LIMIT.
 */
export function handOver(file: string, sent: Sent): void {
  rmSync(file, { force: true });
  if (BUCKETS.every((bucket) => sent[bucket].length === 0)) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...FULL, handover: sent }));
}

/** One line for the end of a run: the pace the server allowed, or nothing when it never slowed the run down. */
export function describePace(file: string, ceiling: number): string | undefined {
  const pace = readPace(file);
  if (pace === undefined || pace.throttles === 0 && pace.lowest === 1) return undefined;
  return `Pace: the server slowed the run ${pace.throttles} times; it went down to ${Math.max(1, Math.floor(ceiling * pace.lowest))} requests per ${RATE_WINDOW_MS / 1000} s (ceiling ${ceiling}, RATE_LIMIT's share of this run)`;
}

/**
 * At most `ceiling × factor` requests in any window for this worker, where the factor falls by half at every
 * throttled answer of any worker and climbs back by RECOVERY_PER_WINDOW per window; a limit the server announces
 * caps it (with a margin), and a pause it asks for holds every worker. Without a file, the pace is this worker's alone.
 */
export class Pace {
  #sent: Sent;
  /** The instants of the slots reserve() took in each window that requests have not used yet. */
  #reserved: Sent = noneSent();
  #own: PaceState = { ...FULL };

  constructor(
    readonly ceiling: number,
    readonly windowMs: number,
    /** This worker's fraction of what the whole run sends (an announced limit is the whole run's). */
    readonly fraction: number,
    private readonly file?: string,
    /** This worker's slot (slotFile): what the worker before it in the slot sent, and what this one sends. */
    private readonly slot?: string,
  ) {
    // This worker's share of the setup's requests still in each window: the newest, as many as its fraction of them.
    // Checked here, once: the shared file is read at every request, and only this reads its handover.
    const handover = sentOf(this.#read().handover);
    const now = Date.now();
    const inherited = readSent(slot);
    if (slot !== undefined) mkdirSync(dirname(slot), { recursive: true });
    this.#sent = perBucket((bucket) => {
      const recent = handover[bucket].filter((at) => at > now - windowMs);
      return [...recent.slice(recent.length - Math.ceil(recent.length * fraction)), ...inherited[bucket].filter((at) => at > now - windowMs)].sort((a, b) => a - b);
    });
  }

  /** When this pace's requests of the last window were sent, in each window. */
  recent(now = Date.now()): Sent {
    return perBucket((bucket) => this.#sent[bucket].filter((at) => at > now - this.windowMs));
  }

  #read(): PaceState {
    return this.file === undefined ? this.#own : (readPace(this.file) ?? FULL);
  }

  #write(state: PaceState): void {
    this.#own = state;
    if (this.file === undefined) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}`;
    writeFileSync(temporary, JSON.stringify(state));
    renameSync(temporary, this.file);
  }

  #factor(state: PaceState, now: number): number {
    return Math.min(1, state.factor + (RECOVERY_PER_WINDOW * Math.max(0, now - state.since)) / this.windowMs);
  }

  /** Requests this worker may send per window now, in each window. */
  limit(now = Date.now()): number {
    return this.#limitOf(this.#read(), now);
  }

  #limitOf(state: PaceState, now: number): number {
    return Math.max(1, Math.floor(this.ceiling * this.#factor(state, now)));
  }

  /**
   * Waits for a slot in the request's window; returns how long it waited, in ms. A slot reserve() took goes first, at
   * once, and the one it took in the other window is given back: the request counts in its own window only.
   */
  async acquire(bucket: Bucket = 'credentialed'): Promise<number> {
    if (this.#reserved[bucket].length > 0) {
      for (const other of BUCKETS) {
        const at = this.#reserved[other].shift() as number;
        const given = this.#sent[other].lastIndexOf(at);
        if (other !== bucket && given >= 0) this.#sent[other].splice(given, 1);
      }
      return 0;
    }
    return (await this.#take(1, bucket)).waited;
  }

  /**
   * Takes `count` slots at once (at most a window's worth) in both windows, so that the next `count` requests go out
   * back to back whichever window they count in: a test clock's move and the read it is for, with no wait of the pace
   * between them. Each request then gives back the slot of the window it does not count in. Returns the wait, in ms.
   */
  async reserve(count: number): Promise<number> {
    let waited = 0;
    const taken = noneSent();
    for (const bucket of BUCKETS) {
      const take = await this.#take(count, bucket);
      waited += take.waited;
      taken[bucket] = Array.from({ length: take.slots }, () => take.at);
    }
    const slots = Math.min(...BUCKETS.map((bucket) => taken[bucket].length));
    this.#reserved = perBucket((bucket) => taken[bucket].slice(0, slots));
    return waited;
  }

  /** Takes min(count, limit) slots in one window, all at one instant, once they are free. */
  async #take(count: number, bucket: Bucket): Promise<{ waited: number; at: number; slots: number }> {
    const started = Date.now();
    const sent = this.#sent[bucket];
    for (;;) {
      const now = Date.now();
      const state = this.#read();
      if (state.pausedUntil > now) {
        await sleep(state.pausedUntil - now);
        continue;
      }
      while (sent.length > 0 && sent[0] <= now - this.windowMs) sent.shift();
      // The state read above: the shared file once per request, not twice.
      const limit = this.#limitOf(state, now);
      const wanted = Math.min(count, limit);
      if (sent.length + wanted <= limit) {
        for (let i = 0; i < wanted; i++) sent.push(now);
        if (this.slot !== undefined) writeFileSync(this.slot, JSON.stringify(this.#sent));
        return { waited: now - started, at: now, slots: wanted };
      }
      await sleep(sent[sent.length + wanted - limit - 1] + this.windowMs - now);
    }
  }

  /** A throttled answer (429, or 503 with Retry-After): the whole run pauses for its wait and halves its pace. Returns the wait in seconds. */
  throttled(headers: Headers, attempt: number): number {
    const wait = throttleWaitSeconds(headers, attempt);
    const now = Date.now();
    const state = this.#read();
    const factor = Math.max(1 / this.ceiling, Math.min(this.#factor(state, now), this.#cap(announcedLimit(headers, now)) ?? 1) / 2);
    this.#write({ ...state, pausedUntil: Math.max(state.pausedUntil, now + wait * 1000), factor, since: now, throttles: state.throttles + 1, lowest: Math.min(state.lowest, factor) });
    return wait;
  }

  /** Any other answer: a limit the server announces caps the pace, and a spent window pauses the run until it resets. */
  observe(headers: Headers): void {
    const announced = announcedLimit(headers);
    if (announced === undefined) return;
    const now = Date.now();
    const state = this.#read();
    const cap = this.#cap(announced);
    const spent = announced.remaining !== undefined && announced.remaining <= 0;
    const current = this.#factor(state, now);
    // A cap a little under the current pace is left to the margin: no write per answer while the pace climbs back.
    if (!spent && (cap === undefined || cap >= current * 0.9)) return;
    const pausedUntil = spent ? Math.max(state.pausedUntil, now + 1000 * Math.ceil(bounded(announced.resetSeconds ?? this.windowMs / 1000))) : state.pausedUntil;
    const factor = Math.min(current, cap ?? 1);
    this.#write({ ...state, pausedUntil, factor, since: now, lowest: Math.min(state.lowest, factor) });
  }

  /** The fraction of the ceiling an announced limit leaves this worker, or undefined when none is announced. */
  #cap(announced: AnnouncedLimit | undefined): number | undefined {
    if (announced?.limit === undefined) return undefined;
    const perWindow = (announced.limit * this.windowMs) / (1000 * (announced.windowSeconds ?? this.windowMs / 1000));
    return Math.max(1 / this.ceiling, Math.min(1, (perWindow * ANNOUNCED_MARGIN * this.fraction) / this.ceiling));
  }
}

/** Backoff of a network fault (a reset, a timeout, a 502/503/504 without Retry-After): 1, 2, 4… s. */
export const networkWaitSeconds = (attempt: number) => Math.ceil(bounded(2 ** attempt));

export { sleep };
