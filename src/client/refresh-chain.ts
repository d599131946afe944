import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The refresh tokens a run against a real target spent, kept under STATE_DIR as digests (SHA-256 of the target's
 * origin and the token: never the token), so that a later run given the same one says it is spent instead of
 * failing OAUTH-REFRESH. A target put back in its starting state before each test (the reference) needs none.
 */
export class SpentRefreshTokens {
  readonly #file: string;

  constructor(
    stateDir: string,
    private readonly origin: string,
  ) {
    this.#file = join(stateDir, 'spent-refresh-tokens.json');
  }

  #digest(token: string): string {
    return createHash('sha256').update(`${this.origin}\n${token}`).digest('hex');
  }

  #read(): string[] {
    try {
      const list: unknown = JSON.parse(readFileSync(this.#file, 'utf8'));
      return Array.isArray(list) ? list.filter((d): d is string => typeof d === 'string') : [];
    } catch {
      return [];
    }
  }

  has(token: string): boolean {
    return this.#read().includes(this.#digest(token));
  }

  add(token: string): void {
    this.#write(new Set(this.#read()).add(this.#digest(token)));
  }

  /** The server that it was spent on lost its state (reset or replaced): a fresh one may take it again. */
  forget(token: string): void {
    const digests = new Set(this.#read());
    if (digests.delete(this.#digest(token))) this.#write(digests);
  }

  #write(digests: Set<string>): void {
    mkdirSync(dirname(this.#file), { recursive: true });
    writeFileSync(`${this.#file}.${process.pid}`, `${JSON.stringify([...digests], null, 2)}\n`);
    renameSync(`${this.#file}.${process.pid}`, this.#file);
  }
}

/** The reason the refresh checks skip when the configured refresh token was spent by an earlier run. */
export const SPENT_REASON =
  'OAUTH_REFRESH_TOKEN was spent by an earlier run against this target (STATE_DIR keeps the digest of every refresh token a run spent): a configuration problem, not a verdict; give each run a fresh one';

/**
 * The refresh token to spend next: OAUTH_REFRESH_TOKEN, then each one the server issues in its place. A server
 * that rotates refresh tokens makes each single use, so one run spends the configured one at most once and every
 * later exchange spends the one the previous exchange issued.
 */
export class RefreshChain {
  #current: string | undefined;
  /** Exchanges sent so far by this worker: a test that sent one cannot be run again. */
  spends = 0;
  /** An earlier run spent the configured refresh token: read once, before this run spends it. */
  readonly spentByEarlierRun: boolean;

  constructor(
    private readonly configured: string | undefined,
    private readonly spentTokens?: SpentRefreshTokens,
  ) {
    this.#current = configured;
    this.spentByEarlierRun = configured !== undefined && spentTokens?.has(configured) === true;
  }

  get current(): string | undefined {
    return this.#current;
  }

  /** The refresh token to send now; a real target's is remembered as spent from this moment. */
  spend(): string | undefined {
    this.spends += 1;
    if (this.#current !== undefined) this.spentTokens?.add(this.#current);
    return this.#current;
  }

  /** After an accepted exchange: the refresh token it issued, if any, is the next to spend. */
  advance(answer: unknown): void {
    const issued = (answer as { refresh_token?: unknown } | undefined)?.refresh_token;
    if (typeof issued === 'string' && issued !== '') this.#current = issued;
  }

  /** The target was put back in its starting state: the configured refresh token is valid again. */
  restart(): void {
    this.#current = this.configured;
  }
}
