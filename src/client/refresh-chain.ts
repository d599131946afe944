/**
 * The refresh token to spend next: OAUTH_REFRESH_TOKEN, then each one the server issues in its place. A server
 * that rotates refresh tokens makes each single use, so one run spends the configured one at most once and every
 * later exchange spends the one the previous exchange issued.
 */
export class RefreshChain {
  #current: string | undefined;

  constructor(private readonly configured: string | undefined) {
    this.#current = configured;
  }

  get current(): string | undefined {
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
