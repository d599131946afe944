import { redactHeaders, redactText, redactUrl } from '../config/redact.ts';

/** One request and its response, redacted at the moment it is recorded. */
export interface Exchange {
  label: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  error?: string;
  ms: number;
}

const BODY_LIMIT = 2000;

/** The exchanges a test judged; attached to its report entry, never holding a secret. */
export class Evidence {
  readonly exchanges: Exchange[] = [];

  /** The secrets, or where to read them as they are learned. */
  constructor(private readonly secrets: readonly string[] | (() => readonly string[])) {}

  add(exchange: Omit<Exchange, 'url' | 'requestHeaders' | 'responseHeaders' | 'responseBody'> & {
    url: string;
    requestHeaders: Record<string, string>;
    responseHeaders?: Record<string, string>;
    responseBody?: Buffer;
  }): void {
    const text = exchange.responseBody ? describeBody(exchange.responseBody, exchange.responseHeaders?.['content-type']) : undefined;
    this.exchanges.push({
      ...exchange,
      label: this.redact(exchange.label),
      url: this.redact(redactUrl(exchange.url)),
      requestHeaders: this.#headers(exchange.requestHeaders),
      requestBody: exchange.requestBody === undefined ? undefined : JSON.parse(this.redact(JSON.stringify(exchange.requestBody))),
      responseHeaders: exchange.responseHeaders && this.#headers(exchange.responseHeaders),
      responseBody: text === undefined ? undefined : this.redact(text),
      error: exchange.error && this.redact(exchange.error),
    });
  }

  redact(text: string): string {
    return redactText(text, typeof this.secrets === 'function' ? this.secrets() : this.secrets);
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
