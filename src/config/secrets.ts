// The secrets of a worker: the configured ones by variable name, and the credentials the token endpoints issue,
// learned the moment an answer arrives (before it is recorded or put in the evidence). Redaction and recordings
// read this one list, so an issued token is hidden wherever it appears afterwards, and recorded as
// `<ISSUED_ACCESS_TOKEN>`, a placeholder that replay sends back as it was recorded.
import { TOKEN_PATHS } from '../contract/contract.ts';

/** A recording's placeholder for a secret (`<ACCESS_TOKEN>`): what replay hands out in place of one. */
const PLACEHOLDER = /^<[A-Z0-9_]+>$/;

/**
 * The strings of a JSON answer that could be credentials, with their keys, in document order: no whitespace, at
 * least 16 characters, and not a value the configuration names (ids appear in many requests and are no secret).
 */
export function credentialStrings(json: unknown, known: ReadonlySet<string>): { key: string; value: string }[] {
  const found: { key: string; value: string }[] = [];
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') {
      if (value.length >= 16 && !/\s/.test(value) && !known.has(value)) found.push({ key, value });
    } else if (Array.isArray(value)) value.forEach((item) => walk(item, key));
    else if (value !== null && typeof value === 'object') for (const [inner, item] of Object.entries(value)) walk(item, inner);
  };
  walk(json, 'value');
  return found;
}

export class Secrets {
  /** Issued value → its name (`ISSUED_ACCESS_TOKEN`, `ISSUED_ACCESS_TOKEN_2`, …). */
  readonly #issued = new Map<string, string>();

  constructor(
    private readonly configured: Readonly<Record<string, string>>,
    /** Values that are not secret (the target's ids): never learned. */
    private readonly known: ReadonlySet<string>,
  ) {}

  byName(): Record<string, string> {
    return { ...this.configured, ...Object.fromEntries([...this.#issued].map(([value, name]) => [name, value])) };
  }

  values(): string[] {
    return [...Object.values(this.configured), ...this.#issued.keys()];
  }

  /** Learns every credential a token endpoint's JSON answer carries; other answers issue none. */
  learn(url: string, contentType: string | undefined, body: Buffer): void {
    if (!TOKEN_PATHS.some((path) => new URL(url).pathname.endsWith(path)) || !/json/i.test(contentType ?? '')) return;
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return;
    }
    for (const { key, value } of credentialStrings(json, this.known)) {
      if (this.#issued.has(value) || Object.values(this.configured).includes(value)) continue;
      // In replay the answer holds the recorded placeholder: it keeps its own name, however it is encoded when sent back.
      if (PLACEHOLDER.test(value)) {
        this.#issued.set(value, value.slice(1, -1));
        continue;
      }
      const base = `ISSUED_${key.replace(/([a-z])([A-Z])/g, '$1_$2').replace(/\W+/g, '_').toUpperCase()}`;
      const taken = new Set(this.#issued.values());
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
      this.#issued.set(value, name);
    }
  }

  /** The target was put back in its starting state: what it issued before no longer exists. */
  forgetIssued(): void {
    this.#issued.clear();
  }
}
