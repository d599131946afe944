// Every request of the suite goes through here: live as it is, recorded in record mode, answered from the
// recording in replay mode. The API client and the server clock share one transport per test.
import type { APIRequestContext } from '@playwright/test';
import { type RateLimiter, RETRIED_STATUSES, retryDelaySeconds, sleep } from './politeness.ts';
import { describeForm, type Interaction, type Masker, maskBody, type Replay, replayForm } from './recording.ts';
import { redactUrl } from '../config/redact.ts';

export interface Outgoing {
  method: 'GET' | 'POST' | 'HEAD';
  url: string;
  headers: Record<string, string>;
  multipart?: FormData;
  data?: unknown;
  maxRedirects?: number;
  /** A URL an answer offered, off the target's origin: not reaching it is not the target's failure, and the caller decides what it means. */
  offered?: boolean;
}

export interface Incoming {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A request that replay has no recording for: a failure of the fixtures, not of the server. */
export class ReplayMismatchError extends Error {}

export class Transport {
  /** Interactions recorded so far (record mode). */
  readonly recorded: Interaction[] = [];

  constructor(
    private readonly request: APIRequestContext,
    private readonly timeoutMs: number,
    private readonly mode: {
      record?: Masker;
      replay?: Replay;
      /** Live targets only: the worker's share of the rate limit. */
      limiter?: RateLimiter;
      /** Retries of a 429 or 503 answer. */
      maxRetries?: number;
      /** Told of every retry, so that the report shows it. */
      onRetry?: (what: string) => void;
      /** Told when the target could not be reached, so that the report gives no verdict. */
      onUnreachable?: (what: string) => void;
      /** Told of a 429 that outlived the retries: whatever the test concludes from it proves nothing. */
      onRateLimited?: (what: string) => void;
      /** Told of every answer before it is recorded or judged, so that the credentials it issues are redacted from then on. */
      onAnswer?: (url: string, incoming: Incoming) => void;
    },
  ) {}

  async fetch(out: Outgoing): Promise<Incoming> {
    const maxRetries = this.mode.maxRetries ?? 0;
    for (let attempt = 0; ; attempt++) {
      await this.mode.limiter?.acquire();
      const incoming = await this.#send(out);
      if (!RETRIED_STATUSES.has(incoming.status) || attempt >= maxRetries) {
        if (incoming.status === 429) this.mode.onRateLimited?.(`${out.method} ${redactUrl(out.url)} was still answered 429 after ${attempt} retries`);
        this.mode.onAnswer?.(out.url, incoming);
        if (this.mode.record) await this.#record(this.mode.record, out, incoming);
        return incoming;
      }
      const wait = retryDelaySeconds(incoming.headers['retry-after'], attempt);
      this.mode.onRetry?.(`${out.method} ${redactUrl(out.url)} answered ${incoming.status}: retry ${attempt + 1} of ${maxRetries} after ${wait} s`);
      await sleep(wait * 1000);
    }
  }

  async #send(out: Outgoing): Promise<Incoming> {
    try {
      const { url, params } = splitSecretQuery(out.url);
      const response = await this.request.fetch(url, {
        params,
        method: out.method,
        headers: out.headers,
        multipart: this.mode.replay && out.multipart ? await replayForm(out.multipart) : out.multipart,
        data: out.data,
        maxRedirects: out.maxRedirects,
        timeout: this.timeoutMs,
      });
      const incoming = { url: response.url(), status: response.status(), headers: response.headers(), body: await response.body() };
      // The request context lives as long as the worker and keeps every response's body until it is disposed.
      await response.dispose();
      return incoming;
    } catch (error) {
      // Replay's own refusal names the request ("Replay has no recorded answer"); nock refuses a method the recording
      // never used at an origin as "No match", and an origin it never saw as "Disallowed net connect".
      if (this.mode.replay && /Nock: (No match|Disallowed net connect)|Replay has no recorded answer/.test((error as Error).message)) {
        throw new ReplayMismatchError(this.mode.replay.unmatched(out.method, out.url));
      }
      if (!out.offered) this.mode.onUnreachable?.(`${out.method} ${redactUrl(out.url)}: ${(error as Error).message.split('\n')[0]}`);
      throw error;
    }
  }

  async #record(masker: Masker, out: Outgoing, incoming: Incoming): Promise<void> {
    // A string is sent as it is, under the content type its request names (a form-encoded body); anything else as JSON.
    const text = typeof out.data === 'string';
    const body = out.multipart ? await describeForm(out.multipart) : out.data === undefined ? undefined : text ? { text: out.data as string } : { json: out.data };
    const contentType = out.multipart ? 'multipart/form-data' : out.data === undefined || text ? undefined : 'application/json';
    this.recorded.push({
      request: {
        method: out.method,
        url: masker.text(out.url),
        headers: masker.requestHeaders({ ...out.headers, ...(contentType ? { 'content-type': contentType } : {}) }),
        ...(body ? { body: maskBody(body, masker) } : {}),
      },
      response: {
        status: incoming.status,
        headers: masker.responseHeaders(incoming.headers),
        ...(incoming.body.length > 0 ? { body: masker.responseBody(incoming.body, incoming.headers['content-type']) } : {}),
      },
    });
  }
}

/**
 * Playwright's own report shows every request as a step titled with its URL, whatever our redaction does. A query
 * holding a signature therefore travels as `params`, which Playwright sends verbatim but does not put in the step.
 */
function splitSecretQuery(url: string): { url: string; params?: string } {
  const at = url.indexOf('?');
  if (at < 0 || redactUrl(url) === url) return { url };
  return { url: url.slice(0, at), params: url.slice(at + 1).split('#')[0] };
}
