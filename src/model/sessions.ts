// Sessions of §3 on either path: first messages and continuations with the optional parts of §2.3, continuations by
// any token of the location, refused turns inside a session, and the closing step that continues every one.
import fc from 'fast-check';
import { accepted, type Auth, type ExecuteRequest, type Reply } from '../client/api.ts';
import type { Target } from '../config/config.ts';
import { executionOptionalParts } from '../checks/requests.ts';
import { DOMAINS } from '../contract/domains.ts';
import { describeErrors, validatorFor } from '../contract/schemas.ts';
import { type RuleId, ruleById } from '../contract/rules.ts';
import { Disagreement, expiredMayRefuse, type Model, type ModelSession, type ModelToken, mustAccept, NotApplicable, shown } from './model.ts';
import { ParallelStep } from './overlaps.ts';
import { FOCUS, IndexedStep, type Real, Step, StepsInTurn, SweepStep, tokenOf } from './step.ts';
import { ExchangeStep } from './tokens.ts';

/** The optional parts of §2.3 a turn may send: those of the execution's domain, and versionId. */
export const OPTIONAL = [...DOMAINS.execution.optionalFields.values.filter((value) => value !== 'none'), 'versionId'] as const;
type Optional = (typeof OPTIONAL)[number];

/** The turns the closing step takes one session to: past the six of the execution's domain (domains.ts `turns`). */
const LONG_SESSION = 8;

const parts = (optional: readonly Optional[]) => (optional.length > 0 ? ` with ${optional.join(', ')}` : '');

/** A turn of a session as sent: the first message, or a continuation when `executionId` is given. */
function turnRequest(target: Target, path: ModelSession['path'], auth: Auth, message: string, optional: readonly Optional[], executionId?: string): ExecuteRequest & { body: Record<string, unknown> } {
  const { query, fields } = executionOptionalParts(optional, target);
  return { path, auth, query, body: { message, locationId: target.locationId, ...fields, ...(executionId ? { executionId } : {}) } };
}

/**
 * What a refusal of a valid turn with these optional parts proves, on the deprecated path (the replacement's refusals
 * prove nothing: exchangeOf). A made-up versionId may name no published version, and source=public_api is a SHOULD
 * (AGENT-SOURCE): a correct server may refuse either. A field of §2.3 refused breaks EXEC-OPTIONAL-FIELDS.
 */
function refusalOf(model: Model, reply: Reply, path: ModelSession['path'], optional: readonly Optional[], what: string): void {
  if (path === 'replacement' || accepted(reply) || reply.status >= 500 || optional.length === 0) return;
  if (optional.includes('versionId')) throw new NotApplicable(`${what} answered ${shown(reply)}: a made-up versionId may name no published version`);
  if (optional.includes('source')) {
    model.note(new Disagreement('AGENT-SOURCE', `${what} answered ${shown(reply)}`));
    throw new NotApplicable(`${what} refused, with source=public_api (AGENT-SOURCE, a SHOULD)`);
  }
  throw new Disagreement('EXEC-OPTIONAL-FIELDS', `${what} answered ${shown(reply)}`);
}

/** The first message of a new session, on either path, as one of the model's tokens, with optional parts of §2.3. */
/** The turn a continuation would be, as events count it: the session's second, or a later one. */
const turnClass = (session: ModelSession) => (session.turns <= 1 ? 'second' : 'later');

export class StartStep extends Step {
  readonly kind = 'start';

  constructor(
    readonly path: 'deprecated' | 'replacement',
    readonly caller: number,
    readonly optional: readonly Optional[] = [],
  ) {
    super();
  }

  // Enough for a walk's starts (generator.ts), each of a session that goes on.
  check(model: Readonly<Model>): boolean {
    return model.sessions.length < MAX_SESSIONS;
  }

  toString(): string {
    return `start a session on the ${this.path} path as token ${this.caller}${parts(this.optional)}`;
  }

  protected async send(model: Model, real: Real): Promise<Reply> {
    const label = `S${model.sessions.length + 1}`;
    real.coverage.event('start', { path: this.path, sessions: model.sessions.length === 0 ? 'none yet' : 'open' });
    return real.api.execute(`model: ${this.toString()}`, turnRequest(real.target, this.path, tokenOf(model, this.caller).auth, `Hello, this starts ${label}`, this.optional));
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const reply = sent as Reply;
    const caller = tokenOf(model, this.caller);
    const what = `the first message of a new session${parts(this.optional)}`;
    expiredMayRefuse(model, caller, reply);
    refusalOf(model, reply, this.path, this.optional, what);
    const { executionId, interactionId } = exchangeOf(reply, this.path, what, caller.issuedBy ?? 'SESSION-START');
    // An earlier session's executionId names that session: the request continued it, and started none (§3).
    if (model.sessions.some((session) => session.executionId === executionId)) throw new Disagreement('SESSION-START', `${what} got executionId ${executionId}, which an earlier session of the run holds: it started no session of its own`);
    model.expectNewInteraction(interactionId, what, executionId);
    model.sessions.push({ label: `S${model.sessions.length + 1}`, path: this.path, executionId, turns: 1, caller });
    model.focus.session = model.sessions.at(-1);
  }
}

/** Sessions a run opens at most. */
const MAX_SESSIONS = 32;

/** A continuation as sent; `beside` is another continuation of the same session in flight with it (ContinueStep.besides). */
class Turn {
  beside?: Turn;

  constructor(
    readonly session: ModelSession,
    readonly caller: ModelToken,
    readonly reply: Reply,
  ) {}
}

/**
 * The next message of one of the run's sessions, by its path, as the token `caller` places after the session's own
 * (0: its own), with optional parts of §2.3.
 */
export class ContinueStep extends IndexedStep {
  readonly kind = 'continue';

  constructor(
    index: number,
    readonly caller = 0,
    readonly optional: readonly Optional[] = [],
  ) {
    super(index);
  }

  /**
   * Marks the continuations of one session among steps sent at once, so that a refusal of one of them while the other
   * is accepted is judged a conflict: §3 says nothing of two turns at once.
   */
  override besides(sent: readonly unknown[]): void {
    const turns = sent.filter((answer): answer is Turn => answer instanceof Turn);
    for (const turn of turns) turn.beside = turns.find((other) => other !== turn && other.session === turn.session);
  }

  protected among(model: Readonly<Model>): number {
    return model.sessions.length;
  }

  toString(): string {
    return `continue session ${this.index === FOCUS ? 'in focus' : `${this.index} (wrapping around)`}${this.caller === 0 ? '' : ` as the token ${this.caller} after its own`}${parts(this.optional)}`;
  }

  protected async send(model: Model, real: Real): Promise<Turn> {
    const session = this.chosen(model.sessions, model.focus.session);
    model.focus.session = session;
    const caller = tokenOf(model, Math.max(0, model.tokens.indexOf(session.caller)) + this.caller);
    const as = caller === session.caller ? '' : ` as ${caller.label}`;
    real.coverage.event('continue', { turn: turnClass(session), caller: caller === session.caller ? 'its own token' : 'another token' });
    real.log[real.log.length - 1] = `continue session ${session.label} (${session.path} path, turn ${session.turns + 1})${as}${parts(this.optional)}`;
    const request = turnRequest(real.target, session.path, caller.auth, `Turn ${session.turns + 1} of ${session.label}`, this.optional, session.executionId);
    return new Turn(session, caller, await real.api.execute(`model: continue ${session.label}${as}`, request));
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const { session, caller, reply, beside } = sent as Turn;
    const what = `turn ${session.turns + 1} of session ${session.label}${caller === session.caller ? '' : ` by ${caller.label}`}${parts(this.optional)}`;
    const refused = !accepted(reply) && reply.status < 500;
    if (refused && beside !== undefined && accepted(beside.reply)) throw new NotApplicable(`${what} answered ${shown(reply)} while another turn of it was in flight: a conflict`);
    expiredMayRefuse(model, caller, reply);
    // §3 binds a session to its executionId, not to the token that started it (every token the model holds may execute:
    // its own, or one an exchange guarantees); a server binding it for security refuses another: a warning, and the
    // refused turn changes nothing.
    if (refused && caller !== session.caller) {
      model.note(new Disagreement('SESSION-OTHER-TOKEN', `${what} answered ${shown(reply)}; §3 continues a session by its executionId, whichever valid token of the location sends it`));
      return;
    }
    refusalOf(model, reply, session.path, this.optional, what);
    continued(model, session, reply, what);
  }
}

/** Judges an answer to a continuation of `session` and takes the turn: an acceptance in that session with a new interactionId. */
function continued(model: Model, session: ModelSession, reply: Reply, what: string): void {
  const { executionId, interactionId } = exchangeOf(reply, session.path, what, 'SESSION-CONTINUE');
  if (executionId !== session.executionId) {
    const other = model.sessions.find((s) => s.executionId === executionId);
    throw new Disagreement('SESSION-CONTINUE', `${what} sent executionId ${session.executionId} and was answered in ${other ? `session ${other.label}` : 'another session'} (${executionId})`);
  }
  model.expectNewInteraction(interactionId, what, executionId);
  session.turns += 1;
}

/** What a refused turn leaves out or gets wrong of a valid continuation, and the rule that says it is refused. */
const FLAWS = {
  'without message': { rule: 'AGENT-MESSAGE-REQUIRED', vary: ({ body: { message: _, ...body }, ...request }) => ({ ...request, body }) },
  'without locationId': { rule: 'AGENT-LOCATION-REQUIRED', vary: ({ body: { locationId: _, ...body }, ...request }) => ({ ...request, body }) },
  'without the Version header': { rule: 'VERSION-MISSING', vary: (request) => ({ ...request, headers: { version: null } }) },
  'without Authorization': { rule: 'AUTH-TOKEN-REQUIRED', vary: (request) => ({ ...request, auth: 'none' }) },
  "with another location's locationId": {
    rule: 'AGENT-FOREIGN-LOCATION',
    vary: (request, target) => (target.foreignLocationId === undefined ? undefined : { ...request, body: { ...request.body, locationId: target.foreignLocationId } }),
  },
} satisfies Record<string, { rule: RuleId; vary: (request: ExecuteRequest & { body: Record<string, unknown> }, target: Target) => ExecuteRequest | undefined }>;
type Flaw = keyof typeof FLAWS;

/**
 * An invalid continuation of one of the run's sessions, by the session's token: refused by its rule, and the session
 * goes on as if it had not been sent (the next turn continues it, with a new interactionId). Where the rule is not a
 * MUST, an acceptance is noted (SHOULD) or only observed (INFO), and judged as the session's next turn.
 */
export class RefusedTurnStep extends IndexedStep {
  readonly kind = 'refused turn';

  constructor(
    index: number,
    readonly flaw: Flaw,
  ) {
    super(index);
  }

  protected among(model: Readonly<Model>): number {
    return model.sessions.length;
  }

  toString(): string {
    return `continue session ${this.index === FOCUS ? 'in focus' : `${this.index} (wrapping around)`} ${this.flaw}`;
  }

  protected async send(model: Model, real: Real): Promise<{ session: ModelSession; reply?: Reply }> {
    const session = this.chosen(model.sessions, model.focus.session);
    model.focus.session = session;
    real.log[real.log.length - 1] = `continue session ${session.label} (${session.path} path, turn ${session.turns + 1}) ${this.flaw}`;
    real.coverage.event('refused turn', { turn: turnClass(session) });
    const valid = turnRequest(real.target, session.path, session.caller.auth, `Turn ${session.turns + 1} of ${session.label}, ${this.flaw}`, [], session.executionId);
    const request = FLAWS[this.flaw].vary(valid, real.target);
    return { session, reply: request && (await real.api.execute(`model: continue ${session.label} ${this.flaw}`, request)) };
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const { session, reply } = sent as { session: ModelSession; reply?: Reply };
    if (reply === undefined) throw new NotApplicable('FOREIGN_LOCATION_ID is not set');
    if (reply.status === 429) throw new NotApplicable(`a turn ${this.flaw} was still answered 429 (rate limited)`);
    if (reply.status >= 400 && reply.status < 500) return;
    const { rule } = FLAWS[this.flaw];
    const what = `turn ${session.turns + 1} of session ${session.label} ${this.flaw}`;
    const broken = new Disagreement(rule, `${what} answered ${shown(reply)}, not a refusal`);
    const { level } = ruleById(rule);
    if (level === 'MUST') throw broken;
    if (level === 'SHOULD') model.note(broken);
    // Not refused where the contract allows it: a server error leaves the turn unknown; an acceptance took it.
    if (!accepted(reply)) throw new NotApplicable(`${what} answered ${shown(reply)}`);
    continued(model, session, reply, what);
  }
}

/** Which of its sessions a drawn step acts on: one by index, or now and then the one the step before acted on. */
const sessionIndex = () => fc.oneof({ weight: 2, arbitrary: fc.nat(5) }, { weight: 1, arbitrary: fc.constant(FOCUS) });

/** Optional parts of §2.3: none as often as some; the made-up versionId seldom, since a server may refuse it. */
const optionalParts = (): fc.Arbitrary<readonly Optional[]> => {
  const some = fc.subarray(OPTIONAL.filter((part) => part !== 'versionId'), { minLength: 1 });
  return fc.oneof({ weight: 4, arbitrary: fc.constant<readonly Optional[]>([]) }, { weight: 3, arbitrary: some }, { weight: 1, arbitrary: some.map((drawn) => [...drawn, 'versionId' as const]) });
};

export const startArbitrary = (): fc.Arbitrary<Step> =>
  fc.tuple(fc.constantFrom<'deprecated' | 'replacement'>('deprecated', 'replacement'), fc.nat(3), optionalParts()).map(([path, caller, optional]) => new StartStep(path, caller, optional));

/** Continuations, mostly by the session's own token, now and then by another of the run's; a walk passes FOCUS as the index. */
export const continueArbitrary = (index: fc.Arbitrary<number> = sessionIndex()): fc.Arbitrary<Step> =>
  fc.tuple(index, fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) }), optionalParts()).map(([at, caller, optional]) => new ContinueStep(at, caller, optional));

export const refusedTurnArbitrary = (index: fc.Arbitrary<number> = sessionIndex()): fc.Arbitrary<Step> =>
  fc.tuple(index, fc.constantFrom(...(Object.keys(FLAWS) as Flaw[]))).map(([at, flaw]) => new RefusedTurnStep(at, flaw));

/**
 * A session started on each path the run has none on yet, a second token of the location where the run holds one
 * only, a refused turn of the first session, then every session continued in turn, the first started first, each by
 * a token other than its own where the run holds one, then the longest session continued with the body's optional
 * fields of §2.3, twice at once, and on to LONG_SESSION turns.
 * Each is continued with another begun after it, whatever the drawn steps were (drawn turns come before any session
 * at some seeds, and a run then holds one session or none); the rest shows what drawn steps reach at some seeds only.
 */
export class EverySessionStep extends StepsInTurn {
  readonly #sweep = new SweepStep('continue every session of the run in turn', (model) => model.sessions, (index) => new ContinueStep(index, 1));

  check(): boolean {
    return true;
  }

  toString(): string {
    return 'a session on each path the run lacks, a second token, a refused turn, then every session continued in turn by another token, and one with the optional fields, twice at once, then to many turns; a session of the other path with the optional fields, and one with source';
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    for (const path of ['deprecated', 'replacement'] as const) if (!model.sessions.some((session) => session.path === path)) await this.part(new StartStep(path, 0), model, real);
    for (const grant of ['location', 'refresh'] as const) if (model.tokens.length < 2) await this.part(new ExchangeStep(grant), model, real);
    if (model.sessions.length > 0) await this.part(new RefusedTurnStep(0, 'without message'), model, real);
    if (this.#sweep.check(model)) await this.part(this.#sweep, model, real);
    const longest = model.sessions.reduce<ModelSession | undefined>((most, session) => (most && most.turns >= session.turns ? most : session), undefined);
    if (longest === undefined) return;
    const at = model.sessions.indexOf(longest);
    await this.part(new ContinueStep(at, 0, ['inputVariables', 'attachments', 'contactId']), model, real);
    await this.part(new ParallelStep([new ContinueStep(at), new ContinueStep(at)]), model, real);
    while (longest.turns < LONG_SESSION) {
      const before = longest.turns;
      await this.part(new ContinueStep(at), model, real);
      // A turn a correct server may refuse (not applicable) leaves it where it was: no endless loop.
      if (longest.turns === before) break;
    }
    // Every optional part on each path, whatever the seed drew (every reply is judged by the rules of §2.4 and §3);
    // last, since a correct server may refuse them (the replacement's shapes, AGENT-SOURCE a SHOULD), which ends the step.
    const other = model.sessions.findIndex((session) => session.path !== longest.path);
    if (other >= 0) await this.part(new ContinueStep(other, 0, ['inputVariables', 'attachments', 'contactId']), model, real);
    await this.part(new ContinueStep(at, 0, ['source']), model, real);
  }
}

/** The ids of an exchange: the deprecated path must answer them (`rule`); the replacement's shapes are not shown. */
function exchangeOf(reply: Reply, path: 'deprecated' | 'replacement', what: string, rule: RuleId): { executionId: string; interactionId: unknown } {
  if (path === 'replacement' && !accepted(reply)) throw new NotApplicable(`${what} on the replacement path answered ${shown(reply)}; its shapes are not shown`);
  mustAccept(reply, what, rule);
  const json = reply.json() as { executionId?: unknown; interactionId?: unknown } | undefined;
  if (typeof json?.executionId !== 'string') {
    if (path === 'replacement') throw new NotApplicable(`${what} on the replacement path answered without an executionId; its shapes are not shown`);
    throw new Disagreement(rule === 'SESSION-CONTINUE' ? rule : 'SESSION-START', `${what} answered without an executionId (${shown(reply)})`);
  }
  // Every reply of the deprecated path, at every turn, has the fields of §2.4 (the replacement's shapes are not shown).
  if (path === 'deprecated') {
    const validate = validatorFor('execution-response');
    if (!validate(json)) throw new Disagreement('EXEC-RESPONSE-SCHEMA', `${what}: the reply lacks the fields of §2.4 or their types: ${describeErrors(validate.errors)}`);
  }
  return { executionId: json.executionId, interactionId: json.interactionId };
}
