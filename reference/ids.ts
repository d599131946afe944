import { createHmac, randomBytes } from 'node:crypto';

/**
 * Identifiers, slugs and the signing key. With a seed they derive from it (two fresh servers
 * given the same requests hand out the same values); without one they are random.
 */
export class Ids {
  readonly #key: Buffer;
  readonly #counters = new Map<string, number>();
  /** Key of download-URL signatures. */
  readonly signingKey: Buffer;

  constructor(
    seed: string | undefined,
    /** How a value looks, from its kind, a hex digest and a length (the style's choice). */
    private readonly format: (kind: string, hex: string, length: number) => string,
  ) {
    this.#key = seed === undefined ? randomBytes(32) : createHmac('sha256', 'reference-server').update(seed).digest();
    this.signingKey = createHmac('sha256', this.#key).update('signing-key').digest();
  }

  /** The next identifier of a kind, e.g. `exec-3f9c…`. Each kind counts on its own. */
  next(kind: string, length = 20): string {
    const count = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, count);
    const digest = createHmac('sha256', this.#key).update(`${kind}:${count}`).digest('hex');
    return this.format(kind, digest, length);
  }

  /** Counting starts again: a seeded server hands out the same values once more. */
  reset(): void {
    this.#counters.clear();
  }

  sign(text: string): string {
    return createHmac('sha256', this.signingKey).update(text).digest('base64url');
  }
}
