// THROTTLE: the reference as a server with a rate limit, to prove the suite's pace against the ways real servers
// announce one. Counted by real time (a rate limit is about load, not about the contract's clock); the dates it
// writes (Retry-After as an HTTP-date) follow the server's clock, as its Date header does.
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface Throttle {
  max: number;
  windowMs: number;
  status: 429 | 503;
  /** How the wait is told: Retry-After in seconds, Retry-After as an HTTP-date, or only `X-RateLimit-*` headers (on every answer). */
  tell: 'seconds' | 'date' | 'headers';
  /** Whom the limit counts: every caller together, or each bearer token (anonymous requests as one more caller). */
  per: 'all' | 'token';
}

const OPTIONS = ['429', '503', 'date', 'headers', 'token'] as const;
export const THROTTLE_FORMAT = `<max>/<seconds>[/${OPTIONS.join('|')}]…`;

/** `40/10/headers/token` → 40 requests per 10 s for each token, told only in X-RateLimit-* headers; undefined when malformed. */
export function parseThrottle(text: string): Throttle | undefined {
  const [max, seconds, ...options] = text.split('/');
  if (!/^\d+$/.test(max ?? '') || !/^\d+(\.\d+)?$/.test(seconds ?? '') || options.some((o) => !(OPTIONS as readonly string[]).includes(o))) return undefined;
  return {
    max: Number(max),
    windowMs: Number(seconds) * 1000,
    status: options.includes('503') ? 503 : 429,
    tell: options.includes('headers') ? 'headers' : options.includes('date') ? 'date' : 'seconds',
    per: options.includes('token') ? 'token' : 'all',
  };
}

/**
 * The onRequest hook: past `max` requests in the window (of this caller), the throttled answer; every request counts,
 * the test clock's and the file reads' too. `retryAfter` false (the alt style) leaves Retry-After out, as the platform does.
 */
export function throttleHook(throttle: Throttle, now: () => number, retryAfter: boolean, refuse: (reply: FastifyReply) => FastifyReply) {
  const arrivals = new Map<string, number[]>();
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const real = Date.now();
    const caller = throttle.per === 'token' ? (request.headers.authorization ?? '') : '';
    const seen = arrivals.get(caller) ?? [];
    arrivals.set(caller, seen);
    while (seen.length > 0 && seen[0] <= real - throttle.windowMs) seen.shift();
    const resetSeconds = Math.max(1, Math.ceil(((seen[0] ?? real) + throttle.windowMs - real) / 1000));
    const over = seen.length >= throttle.max;
    if (!over) seen.push(real);
    if (throttle.tell === 'headers') {
      reply.header('x-ratelimit-limit', String(throttle.max));
      reply.header('x-ratelimit-remaining', String(Math.max(0, throttle.max - seen.length)));
      reply.header('x-ratelimit-reset', String(resetSeconds));
    }
    if (!over) return;
    if (retryAfter && throttle.tell !== 'headers') {
      // An HTTP-date on the server's clock, whole seconds as its Date header gives them.
      const date = new Date(Math.floor(now() / 1000) * 1000 + resetSeconds * 1000).toUTCString();
      reply.header('retry-after', throttle.tell === 'date' ? date : String(resetSeconds));
    }
    return refuse(reply);
  };
}
