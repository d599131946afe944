import { nameCredential, redactHeaders, redactText, redactUrl } from '../config/redact.ts';
import type { TestFile } from '../files/test-file.ts';

/** What a check expected of an answer (the suite's matchers and privacy routes), and whether it held: what a reproducer checks again. */
export interface Judgement {
  /** `refusal`: a 4xx but 429; `acceptance`: a 2xx, or a GET's redirect with Location; `serves`/`withholds`: the file's exact bytes in a 2xx, or not. */
  expected: 'refusal' | 'acceptance' | 'serves' | 'withholds';
  file?: ReturnType<typeof fileRef>;
  held: boolean;
}

/** A file as the evidence names it: the suite's test files are made again from their name and size. */
export const fileRef = (file: TestFile) => ({ name: file.name, size: file.bytes.length, sha256: file.sha256 });

/** One request and its response, redacted at the moment it is recorded. */
export interface Exchange {
  label: string;
  /** The W3C trace id the request carried (its `traceparent`): what to search for in the server's logs. */
  traceId?: string;
  /** When it was sent, by this machine's clock (ISO-8601): the gaps between exchanges are the waits of the test. */
  startedAt: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  error?: string;
  ms: number;
  /** False where the request did not follow redirects, so that the answer judged was the redirect itself. */
  followRedirects?: boolean;
  judged?: Judgement[];
}

/** The exchange each reply came from, so that a check judging the reply marks what it expected of the exchange. */
const exchangeOf = new WeakMap<object, Exchange>();

export function linkReply(reply: object, exchange: Exchange): void {
  exchangeOf.set(reply, exchange);
}

/** Notes on the reply's exchange what a check expected of it; a reply of no exchange (made up by a test) has none to note. */
export function judge(reply: object, judgement: Judgement): void {
  const exchange = exchangeOf.get(reply);
  if (exchange) (exchange.judged ??= []).push(judgement);
}

const BODY_LIMIT = 2000;

/** The exchanges a test judged; attached to its report entry, never holding a secret. */
export class Evidence {
  readonly exchanges: Exchange[] = [];

  /** The secrets by name, or where to read them as they are learned. */
  constructor(private readonly secrets: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>)) {}

  add(exchange: Omit<Exchange, 'url' | 'requestHeaders' | 'responseHeaders' | 'responseBody' | 'traceId' | 'judged'> & {
    url: string;
    requestHeaders: Record<string, string>;
    responseHeaders?: Record<string, string>;
    responseBody?: Buffer;
  }): Exchange {
    const text = exchange.responseBody ? describeBody(exchange.responseBody, exchange.responseHeaders?.['content-type']) : undefined;
    const { authorization, ...headers } = exchange.requestHeaders;
    const added: Exchange = {
      ...exchange,
      label: this.redact(exchange.label),
      traceId: exchange.requestHeaders.traceparent?.split('-')[1],
      url: this.redact(redactUrl(exchange.url)),
      // The credential by its setting's name, never its value: a reproducer sends it again from the environment.
      requestHeaders: { ...this.#headers(headers), ...(authorization === undefined ? {} : { authorization: nameCredential(authorization, this.#byName()) }) },
      requestBody: exchange.requestBody === undefined ? undefined : JSON.parse(this.redact(JSON.stringify(exchange.requestBody))),
      responseHeaders: exchange.responseHeaders && this.#headers(exchange.responseHeaders),
      responseBody: text === undefined ? undefined : this.redact(text),
      error: exchange.error && this.redact(exchange.error),
    };
    this.exchanges.push(added);
    return added;
  }

  redact(text: string): string {
    return redactText(text, Object.values(this.#byName()));
  }

  #byName(): Readonly<Record<string, string>> {
    return typeof this.secrets === 'function' ? this.secrets() : this.secrets;
  }

  #headers(headers: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(redactHeaders(headers)).map(([name, value]) => [name, this.redact(value)]));
  }
}

/** Text bodies as text (cut at BODY_LIMIT); binary ones as size and digest. */
function describeBody(body: Buffer, contentType = ''): string {
  const textual = /json|text|xml|html|javascript|x-www-form-urlencoded/.test(contentType) || contentType === '';
  if (!textual || body.includes(0)) return `<${body.length} bytes of ${contentType || 'unknown type'}>`;
  const text = body.toString('utf8');
  return text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}… <${body.length} bytes in all>` : text;
}
