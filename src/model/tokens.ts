// Tokens the run obtains by exchange, and every token tried against another location's agent.
import { accepted, type Reply } from '../client/api.ts';
import type { RuleId } from '../contract/rules.ts';
import { Disagreement, type Model, type ModelToken, mustAccept, NotApplicable, shown } from './model.ts';
import { type Real, Step, StepsInTurn } from './step.ts';


/** Tokens a run holds at most, the configured one among them. */
const MAX_TOKENS = 4;

/** The rule that issues each kind of exchanged token. */
const EXCHANGE_RULES = { refresh: 'OAUTH-REFRESH', location: 'OAUTH-LOCATION-TOKEN' } as const satisfies Record<string, RuleId>;

/** A token obtained by an exchange: the refresh token's (a target put back before each run only), or an Agency token's location token. */
export class ExchangeStep extends Step {
  readonly kind = 'exchange';

  constructor(readonly grant: 'refresh' | 'location') {
    super();
  }

  check(): boolean {
    return true;
  }

  toString(): string {
    return this.grant === 'refresh' ? 'POST /oauth/token with the refresh token' : 'POST /oauth/location-token with the Agency token';
  }

  protected async send(model: Model, real: Real): Promise<{ reply: Reply; spending?: { together: number } } | undefined> {
    const { api, target, chain } = real;
    real.coverage.event('exchange', { tokens: tokensClass(model) });
    if (this.grant === 'location') return target.tokens.agencyAccess === undefined ? undefined : { reply: await api.locationToken(`model: ${this.toString()}`, 'agencyAccess') };
    if (chain === undefined || target.oauthClientId === undefined || target.tokens.oauthClientSecret === undefined || chain.current === undefined) return undefined;
    const refreshToken = chain.spend() as string;
    // Exchanges of one refresh token in flight together share one count: a server that rotates takes one of them.
    const spending = model.refreshing.get(refreshToken) ?? { together: 0 };
    spending.together += 1;
    model.refreshing.set(refreshToken, spending);
    const form = { grant_type: 'refresh_token', client_id: target.oauthClientId, client_secret: target.tokens.oauthClientSecret, refresh_token: refreshToken };
    const reply = await api.oauthToken(`model: ${this.toString()}`, form);
    model.refreshing.delete(refreshToken);
    if (accepted(reply)) chain.advance(reply.json());
    return { reply, spending };
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const exchange = sent as { reply: Reply; spending?: { together: number } } | undefined;
    if (exchange === undefined) throw new NotApplicable(this.grant === 'refresh' ? 'no refresh token this run may spend (the refresh checks spend it on a target that keeps its state)' : 'AGENCY_ACCESS_TOKEN is not set');
    const { reply, spending } = exchange;
    if (!accepted(reply) && reply.status < 500 && (spending?.together ?? 0) > 1) throw new NotApplicable(`${this.toString()} answered ${shown(reply)}: its refresh token was spent by another exchange at once, and a server that rotates refresh tokens takes one`);
    const rule = EXCHANGE_RULES[this.grant];
    mustAccept(reply, this.toString(), rule);
    const { access_token: token, expires_in: lifetime } = (reply.json() as { access_token?: unknown; expires_in?: unknown } | undefined) ?? {};
    if (typeof token !== 'string') throw new NotApplicable('the answer names no access_token (its shape is not shown; specs/oauth-tokens.spec.ts finds the token in it)');
    // A few tokens at most, the oldest exchanged one given up: every step tries each token held against the other location.
    if (model.tokens.length >= MAX_TOKENS) model.tokens.splice(1, 1);
    const expiresAt = typeof lifetime === 'number' && lifetime > 0 ? model.now + lifetime * 1000 : undefined;
    model.tokens.push({ label: `token ${++model.exchanges} (${this.grant === 'refresh' ? 'refreshed' : 'location token'})`, auth: { bearer: token }, issuedBy: rule, issuedAt: model.now, exchange: model.exchanges, ...(expiresAt ? { expiresAt } : {}) });
  }
}

/** The tokens held, as events count them. */
const tokensClass = (model: Readonly<Model>) => (model.tokens.length <= 1 ? 'configured token only' : 'exchanged tokens held');

/** Every token of LOCATION_ID the run holds, configured or obtained, runs FOREIGN_AGENT_ID for FOREIGN_LOCATION_ID: each must be refused. */
export class ForeignStep extends Step {
  readonly kind = 'foreign';

  check(): boolean {
    return true;
  }

  toString(): string {
    return 'execute FOREIGN_AGENT_ID for FOREIGN_LOCATION_ID as every token the run holds';
  }

  protected async send(model: Model, real: Real): Promise<{ control?: Reply; replies: [ModelToken, Reply][] } | undefined> {
    const { api, target } = real;
    real.coverage.event('foreign', { tokens: tokensClass(model) });
    const { foreignAgentId, foreignLocationId } = target;
    if (foreignAgentId === undefined || foreignLocationId === undefined || target.tokens.foreignAccess === undefined) return undefined;
    real.log[real.log.length - 1] = `execute FOREIGN_AGENT_ID for FOREIGN_LOCATION_ID as ${model.tokens.map((token) => token.label).join(', ')}`;
    const request = (auth: ModelToken['auth']) => ({ agentId: foreignAgentId, auth, body: { message: 'Hello from another location', locationId: foreignLocationId } });
    // The control, once per run: the same execution with the foreign location's own token is accepted.
    const control = model.foreignControl === 'unknown' ? await api.execute('model: FOREIGN_AGENT_ID with FOREIGN_ACCESS_TOKEN (the control)', request('foreignAccess')) : undefined;
    const replies: [ModelToken, Reply][] = [];
    for (const token of model.tokens) replies.push([token, await api.execute(`model: FOREIGN_AGENT_ID as ${token.label}`, request(token.auth))]);
    return { control, replies };
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const exchange = sent as { control?: Reply; replies: [ModelToken, Reply][] } | undefined;
    if (exchange === undefined) throw new NotApplicable('FOREIGN_AGENT_ID, FOREIGN_LOCATION_ID and FOREIGN_ACCESS_TOKEN are not all set');
    if (exchange.control) model.foreignControl = accepted(exchange.control) ? 'accepted' : 'refused';
    if (model.foreignControl !== 'accepted') throw new NotApplicable('FOREIGN_AGENT_ID did not run with FOREIGN_ACCESS_TOKEN, so a refusal proves nothing');
    for (const [token, reply] of exchange.replies) {
      if (accepted(reply)) model.note(new Disagreement('AUTH-TENANT-EXECUTE', `${token.label}, of LOCATION_ID, ran FOREIGN_AGENT_ID for FOREIGN_LOCATION_ID: ${shown(reply)}`));
      else if (reply.status >= 500) model.note(new Disagreement('AUTH-TENANT-EXECUTE', `${token.label} running FOREIGN_AGENT_ID got a server error: ${shown(reply)}`));
    }
  }
}

/**
 * A token of each kind of exchange the run does not hold yet (refreshed, location), then every token held tried against
 * FOREIGN_AGENT_ID. Every sequence of the tokens' profile ends with it (closingOf): drawn steps alone may never follow a
 * refresh with a foreign execution, and a refreshed token that reaches any location then goes unseen (GENERATOR_SEED
 * 183706709, for refreshed-token-any-location).
 */
export class EveryTokenStep extends StepsInTurn {
  check(): boolean {
    return true;
  }

  toString(): string {
    return 'a token of each exchange the run lacks, then FOREIGN_AGENT_ID as every token held';
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    for (const kind of ['refresh', 'location'] as const) {
      const exchange = new ExchangeStep(kind);
      if (!model.tokens.some((token) => token.issuedBy === EXCHANGE_RULES[kind])) await this.part(exchange, model, real);
    }
    await this.part(new ForeignStep(), model, real);
  }
}
