import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
  env?: string;
}

export interface AuthorizationCode {
  code: string;
  clientId: string;
  owner: Owner;
  companyId: string;
  locationId?: string;
  scopes: string[];
}

export interface SeedData {
  companies: { id: string }[];
  locations: { id: string; companyId: string; env?: string }[];
  conversations: { id: string; locationId: string; channel: string; env?: string }[];
  contacts: { id: string; locationId: string; env?: string }[];
  agents: { id: string; name: string; locationId: string; status: string; env?: string }[];
  apps: { clientId: string; clientSecret: string }[];
  tokens: Token[];
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
      .filter((t) => t.owner === 'location' && !locations.has(t.locationId ?? ''))
      .map((t) => `a ${t.kind} token of ${t.env ?? 'no env name'}: unknown location ${t.locationId}`),
  ];
  if (problems.length > 0) throw new Error(`seed file ${file} is inconsistent: ${problems.join('; ')}`);
}

/** The mutable state of one server: the seed plus what requests created (tokens, codes used). */
export class World {
  readonly #tokens = new Map<string, Token>();
  readonly #codes = new Map<string, AuthorizationCode>();
  /** Refresh token value → the grant it renews; single use, rotated on every exchange. */
  readonly #refreshTokens = new Map<string, AuthorizationCode>();

  constructor(readonly seed: SeedData) {
    this.reset();
  }

  /** Back to the seed: issued tokens, used codes and refresh tokens are forgotten. */
  reset(): void {
    this.#tokens.clear();
    this.#codes.clear();
    this.#refreshTokens.clear();
    for (const token of this.seed.tokens) this.#tokens.set(token.value, token);
    for (const code of this.seed.authorizationCodes) this.#codes.set(code.code, code);
  }

  token(value: string): Token | undefined {
    return this.#tokens.get(value);
  }

  addToken(token: Token): void {
    this.#tokens.set(token.value, token);
  }

  /** An authorization code is used once. */
  takeCode(code: string): AuthorizationCode | undefined {
    const found = this.#codes.get(code);
    this.#codes.delete(code);
    return found;
  }

  /** A refresh token is used once. */
  takeRefreshToken(value: string): AuthorizationCode | undefined {
    const found = this.#refreshTokens.get(value);
    this.#refreshTokens.delete(value);
    return found;
  }

  addRefreshToken(value: string, grant: AuthorizationCode): void {
    this.#refreshTokens.set(value, grant);
  }

  location(id: string) {
    return this.seed.locations.find((l) => l.id === id);
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

  app(clientId: string) {
    return this.seed.apps.find((a) => a.clientId === clientId);
  }
}
