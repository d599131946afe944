// Every request of the suite goes through here: live as it is, recorded in record mode, answered from the
// recording in replay mode. The API client and the server clock share one transport per test.
import type { APIRequestContext } from '@playwright/test';
import { describeForm, type Interaction, type Masker, maskBody, type Replay } from './recording.ts';

export interface Outgoing {
  method: 'GET' | 'POST' | 'HEAD';
  url: string;
  headers: Record<string, string>;
  multipart?: FormData;
  data?: unknown;
  maxRedirects?: number;
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
    private readonly mode: { record?: Masker; replay?: Replay },
  ) {}

  async fetch(out: Outgoing): Promise<Incoming> {
    let incoming: Incoming;
    try {
      const response = await this.request.fetch(out.url, {
        method: out.method,
        headers: out.headers,
        multipart: out.multipart,
        data: out.data,
        maxRedirects: out.maxRedirects,
        timeout: this.timeoutMs,
      });
      incoming = { url: response.url(), status: response.status(), headers: response.headers(), body: await response.body() };
    } catch (error) {
      if (this.mode.replay && /Nock: No match/.test((error as Error).message)) {
        throw new ReplayMismatchError(this.mode.replay.unmatched(out.method, out.url));
      }
      throw error;
    }
    if (this.mode.record) await this.#record(this.mode.record, out, incoming);
    return incoming;
  }

  async #record(masker: Masker, out: Outgoing, incoming: Incoming): Promise<void> {
    const body = out.multipart ? await describeForm(out.multipart) : out.data === undefined ? undefined : { json: out.data };
    const contentType = out.multipart ? 'multipart/form-data' : out.data === undefined ? undefined : 'application/json';
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
