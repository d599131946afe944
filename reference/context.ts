import type { Clock, TestClock } from './clock.ts';
import type { FileStore } from './file-store.ts';
import type { Ids } from './ids.ts';
import type { Policy } from './policy.ts';
import type { Token, World } from './world.ts';

export interface Session {
  readonly executionId: string;
  readonly agentId: string;
  /** The token that started it. */
  readonly token: Token;
  turns: number;
  lastInteractionId?: string;
  /** The contactId its first message named. */
  readonly contactId?: string;
}

/** What every plugin of one server instance shares. */
export interface Context {
  readonly clock: Clock;
  /** Present only when the test clock is switched on. */
  readonly testClock?: TestClock;
  readonly ids: Ids;
  readonly world: World;
  readonly files: FileStore;
  readonly sessions: Map<string, Session>;
  /** The slugs a signed download URL was issued for. */
  readonly signedSlugs: Set<string>;
  /** The contract's in the server's style, with the switched-on fault's changes. */
  readonly policy: Policy;
  /** The origin serving files, when the style gives them one of their own (policy.filesOrigin `assets`). */
  readonly filesOrigin?: string;
}

export type VersionPolicy = 'required' | 'with-token';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `required`: every request needs `Version`; `with-token`: only requests that carry a token. */
    version?: VersionPolicy;
  }
  interface FastifyRequest {
    token?: Token;
  }
  interface FastifyInstance {
    /** Back to the state of a fresh server of the same options: no files, sessions or issued tokens, ids and clock from the start. */
    resetState(): Promise<void>;
  }
}
