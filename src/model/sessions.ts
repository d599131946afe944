// Sessions of §3 on either path: first messages, continuations, and the closing step that continues every one.
import { accepted, type Reply } from '../client/api.ts';
import type { Target } from '../config/config.ts';
import type { RuleId } from '../contract/rules.ts';
import { Disagreement, type Model, mustAccept, NotApplicable, shown } from './model.ts';
import { type Real, Step, tokenOf, IndexedStep, StepsInTurn, SweepStep } from './step.ts';


const sessionBody = (target: Target, message: string, executionId?: string) => ({ message, locationId: target.locationId, ...(executionId ? { executionId } : {}) });

/** The first message of a new session, on either path, as one of the model's tokens. */
export class StartStep extends Step {
  readonly kind = 'start';

  constructor(
    readonly path: 'deprecated' | 'replacement',
    readonly caller: number,
  ) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return model.sessions.length < 4;
  }

  toString(): string {
    return `start a session on the ${this.path} path as token ${this.caller}`;
  }

  protected async send(model: Model, real: Real): Promise<Reply> {
    const label = `S${model.sessions.length + 1}`;
    return real.api.execute(`model: ${this.toString()}`, { path: this.path, auth: tokenOf(model, this.caller).auth, body: sessionBody(real.target, `Hello, this starts ${label}`) });
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const reply = sent as Reply;
    const caller = tokenOf(model, this.caller);
    const { executionId, interactionId } = exchangeOf(reply, this.path, 'a new session', caller.issuedBy ?? 'SESSION-START');
    if (model.sessions.some((session) => session.executionId === executionId)) throw new Disagreement('SESSION-DISTINCT', `a new session got executionId ${executionId}, which an earlier session of the run holds`);
    model.expectNewInteraction(interactionId, 'the first exchange of a new session', executionId);
    model.sessions.push({ label: `S${model.sessions.length + 1}`, path: this.path, executionId, turns: 1, caller });
    model.focus.session = model.sessions.at(-1);
  }
}

/** The next message of one of the run's sessions, by its path and token. */
export class ContinueStep extends IndexedStep {
  readonly kind = 'continue';

  protected among(model: Readonly<Model>): number {
    return model.sessions.length;
  }

  toString(): string {
    return `continue session ${this.index} (wrapping around)`;
  }

  protected async send(model: Model, real: Real): Promise<{ session: Model['sessions'][number]; reply: Reply }> {
    const session = this.chosen(model.sessions, model.focus.session);
    model.focus.session = session;
    real.log[real.log.length - 1] = `continue session ${session.label} (${session.path} path, turn ${session.turns + 1})`;
    const body = sessionBody(real.target, `Turn ${session.turns + 1} of ${session.label}`, session.executionId);
    return { session, reply: await real.api.execute(`model: continue ${session.label}`, { path: session.path, auth: session.caller.auth, body }) };
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const { session, reply } = sent as { session: Model['sessions'][number]; reply: Reply };
    const what = `turn ${session.turns + 1} of session ${session.label}`;
    const { executionId, interactionId } = exchangeOf(reply, session.path, what, 'SESSION-CONTINUE');
    if (executionId !== session.executionId) {
      const other = model.sessions.find((s) => s.executionId === executionId);
      throw new Disagreement('SESSION-CONTINUE', `${what} sent executionId ${session.executionId} and was answered in ${other ? `session ${other.label}` : 'another session'} (${executionId})`);
    }
    model.expectNewInteraction(interactionId, what, executionId);
    session.turns += 1;
  }
}

/**
 * A session started on each path the run has none on yet, then every session of the run continued in turn, the first
 * started first: each is continued with another begun after it, whatever the drawn steps were (drawn turns come before
 * any session at some seeds, and a run then holds one session or none).
 */
export class EverySessionStep extends StepsInTurn {
  readonly #sweep = new SweepStep('continue every session of the run in turn', (model) => model.sessions, (index) => new ContinueStep(index));

  check(): boolean {
    return true;
  }

  toString(): string {
    return 'a session on each path the run lacks, then every session continued in turn';
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    for (const path of ['deprecated', 'replacement'] as const) if (!model.sessions.some((session) => session.path === path)) await this.part(new StartStep(path, 0), model, real);
    if (this.#sweep.check(model)) await this.part(this.#sweep, model, real);
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
  return { executionId: json.executionId, interactionId: json.interactionId };
}
