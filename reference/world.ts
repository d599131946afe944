import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SECRETS, SETTINGS, TARGET_IDS, type TargetWorld } from '../src/config/config.ts';

export const DEFAULT_SEED_FILE = fileURLToPath(new URL('./seed.json', import.meta.url));

export type Owner = 'location' | 'company';

export interface Token {
  value: string;
  kind: 'oauth' | 'pit';
  owner: Owner;
  companyId: string;
  locationId?: string;
  scopes: string[];
  /** Epoch ms; seed tokens never expire. */
  expiresAt?: number;
  /** Issued for a refresh token. */
  refreshed?: true;
  /** Issued by POST /oauth/location-token for an Agency token. */
  locationToken?: true;
  env?: string;
}

/** What an authorization code or a refresh token grants, to which client. */
export interface Grant {
  clientId: string;
  owner: Owner;
  companyId: string;
  locationId?: string;
  scopes: string[];
}

export interface AuthorizationCode extends Grant {
  code: string;
}

/** A refresh token of the seed and the grant it renews. */
export interface SeedRefreshToken extends Grant {
  value: string;
  kind: 'refresh';
  env?: string;
}

/** An app's client secret. */
export interface ClientSecret {
  value: string;
  kind: 'client-secret';
  clientId: string;
  env?: string;
}

/** Every secret of the seed is in its `tokens` list, whatever its kind, so whatever rewrites the seed's secrets finds them all. */
export type SeedSecret = Token | SeedRefreshToken | ClientSecret;

export interface SeedData {
  companies: { id: string; env?: string }[];
  locations: { id: string; companyId: string; env?: string }[];
  conversations: { id: string; locationId: string; channel: string; env?: string }[];
  contacts: { id: string; locationId: string; env?: string }[];
  agents: { id: string; name: string; locationId: string; status: string; env?: string }[];
  workflows: { id: string; locationId: string; env?: string }[];
  campaigns: { id: string; locationId: string; env?: string }[];
  apps: { clientId: string; env?: string }[];
  tokens: SeedSecret[];
  authorizationCodes: AuthorizationCode[];
}

export function loadSeed(file = DEFAULT_SEED_FILE): SeedData {
  let data: SeedData;
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as SeedData;
  } catch (error) {
    throw new Error(`seed file ${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  checkReferences(data, file);
  return data;
}

function checkReferences(data: SeedData, file: string): void {
  const locations = new Set(data.locations.map((l) => l.id));
  const companies = new Set(data.companies.map((c) => c.id));
  const problems = [
    ...data.locations.filter((l) => !companies.has(l.companyId)).map((l) => `location ${l.id}: unknown company ${l.companyId}`),
    ...[...data.conversations, ...data.contacts, ...data.agents]
      .filter((x) => !locations.has(x.locationId))
      .map((x) => `${x.id}: unknown location ${x.locationId}`),
    ...data.tokens
      .filter((t): t is Token | SeedRefreshToken => t.kind !== 'client-secret' && t.owner === 'location' && !locations.has(t.locationId ?? ''))
      .map((t) => `a ${t.kind} token of ${t.env ?? 'no env name'}: unknown location ${t.locationId}`),
  ];
  if (problems.length > 0) throw new Error(`seed file ${file} is inconsistent: ${problems.join('; ')}`);
}

/** The mutable state of one server: the seed plus what requests created (tokens, codes used). */
export class World {
  readonly #tokens = new Map<string, Token>();
  readonly #codes = new Map<string, AuthorizationCode>();
  /** Refresh token value → the grant it renews; single use, rotated on every exchange. */
  readonly #refreshTokens = new Map<string, Grant>();

  constructor(readonly seed: SeedData) {
    this.reset();
  }

  /** Back to the seed: issued tokens, used codes and refresh tokens are forgotten. */
  reset(): void {
    this.#tokens.clear();
    this.#codes.clear();
    this.#refreshTokens.clear();
    for (const secret of this.seed.tokens) {
      if (secret.kind === 'refresh') this.#refreshTokens.set(secret.value, secret);
      else if (secret.kind !== 'client-secret') this.#tokens.set(secret.value, secret);
    }
    for (const code of this.seed.authorizationCodes) this.#codes.set(code.code, code);
  }

  token(value: string): Token | undefined {
    return this.#tokens.get(value);
  }

  addToken(token: Token): void {
    this.#tokens.set(token.value, token);
  }

  /** Revokes the tokens `which` picks. */
  revokeTokens(which: (token: Token) => boolean): void {
    for (const [value, token] of this.#tokens) if (which(token)) this.#tokens.delete(value);
  }

  /** An authorization code is used once. */
  takeCode(code: string): AuthorizationCode | undefined {
    const found = this.#codes.get(code);
    this.#codes.delete(code);
    return found;
  }

  /** A refresh token is used once. */
  takeRefreshToken(value: string): Grant | undefined {
    const found = this.#refreshTokens.get(value);
    this.#refreshTokens.delete(value);
    return found;
  }

  /** The grant of a refresh token, which stays valid. */
  refreshGrant(value: string): Grant | undefined {
    return this.#refreshTokens.get(value);
  }

  addRefreshToken(value: string, grant: Grant): void {
    this.#refreshTokens.set(value, grant);
  }

  location(id: string) {
    return this.seed.locations.find((l) => l.id === id);
  }

  locationsOf(companyId: string): string[] {
    return this.seed.locations.filter((l) => l.companyId === companyId).map((l) => l.id);
  }

  conversation(id: string) {
    return this.seed.conversations.find((c) => c.id === id);
  }

  contact(id: string) {
    return this.seed.contacts.find((c) => c.id === id);
  }

  agent(id: string) {
    return this.seed.agents.find((a) => a.id === id);
  }

  /** An app and its client secret. */
  app(clientId: string): { clientId: string; clientSecret?: string } | undefined {
    if (!this.seed.apps.some((a) => a.clientId === clientId)) return undefined;
    const secret = this.seed.tokens.find((s): s is ClientSecret => s.kind === 'client-secret' && s.clientId === clientId);
    return { clientId, clientSecret: secret?.value };
  }

  /** The grant of the client's seed refresh token, however often it was rotated since. */
  seedGrantOf(clientId: string): Grant | undefined {
    return this.seed.tokens.find((s): s is SeedRefreshToken => s.kind === 'refresh' && s.clientId === clientId);
  }
}

/** The reference world under the suite's names: each identifier and token of the seed whose `env` names a setting. */
export function worldOf(seed: SeedData): TargetWorld {
  const entries = [
    ...[...seed.companies, ...seed.locations, ...seed.conversations, ...seed.contacts, ...seed.agents, ...seed.workflows, ...seed.campaigns].map((item) => ({ env: item.env, value: item.id })),
    ...seed.apps.map((app) => ({ env: app.env, value: app.clientId })),
  ];
  const valueOf = (key: keyof typeof SETTINGS, list: { env?: string; value: string }[]) => list.find((item) => item.env === SETTINGS[key].env)?.value;
  const tokens = Object.fromEntries(SECRETS.map((key) => [key, valueOf(key, seed.tokens)]));
  return { ...Object.fromEntries(TARGET_IDS.map((key) => [key, valueOf(key, entries)])), tokens } as TargetWorld;
}
