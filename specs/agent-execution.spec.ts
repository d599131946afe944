// Agent execution of §4.3: the reply of §2.4 and the session rule of §3 on the deprecated path, the optional fields of
// §2.3, and the requests rules 1 and 2 forbid on both paths, as a session's first message and as a continuation: the
// hand-written ones here, the variants generated from schemas/execution-request.schema.json after them.
import { accepted, type Api, type ExecuteRequest, type Reply } from '../src/client/api.ts';
import { type CaseOutcome, describeCase } from '../src/checks/property.ts';
import { EXECUTION_OPTIONAL_FIELDS } from '../src/checks/requests.ts';
import type { Target, TargetId } from '../src/config/config.ts';
import type { Case, PropertyRule } from '../src/contract/domains.ts';
import { spaceOf, variedOf } from '../src/contract/generate.ts';
import type { RuleId } from '../src/contract/rules.ts';
import { expect, forEvery, observe, outcome, requireAccepted, requireControl, requireSettings, rule, sessionStarted, test } from '../src/suite.ts';
import { variantPlaces, variantsOf } from '../src/contract/variants.ts';

const MESSAGE = 'Hello from the conformance suite';

/** A valid §2.3 body for the configured location, with extra fields such as executionId. */
const body = (target: Target, extra: Record<string, unknown> = {}) => ({ message: MESSAGE, locationId: target.locationId, ...extra });

/** A field of a JSON object body; undefined when the body is not a JSON object. */
function field(reply: Reply, name: string): unknown {
  const json = reply.json();
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>)[name] : undefined;
}

/** Starts a session; a server that starts none fails SESSION-START (on the deprecated path), and the test skips. */
async function startSession(api: Api, label: string, path: ExecutePath = 'deprecated'): Promise<{ reply: Reply; executionId: string }> {
  const reply = await api.execute(label, { path });
  if (path === 'replacement') {
    requireControl(reply, 'the first message of a session on the replacement path', 'not guaranteed');
    const id = field(reply, 'executionId');
    test.skip(typeof id !== 'string' || id === '', "not applicable: the replacement's first reply carried no executionId (its shapes are not shown)");
  }
  return { reply, executionId: sessionStarted(reply) };
}

type ExecutePath = NonNullable<ExecuteRequest['path']>;
type Kind = 'first message' | 'continuation';

interface RefusalCase {
  rule: RuleId;
  statement: string;
  /** Optional settings the case needs. */
  needs?: TargetId[];
  /** The request kinds the rule governs. */
  kinds: Kind[];
  /** The control request with the one property under test changed. */
  vary: (control: ExecuteRequest & { body: Record<string, unknown> }, target: Target) => ExecuteRequest;
}

const BOTH: Kind[] = ['first message', 'continuation'];

const REFUSALS: RefusalCase[] = [
  {
    rule: 'SESSION-UNKNOWN',
    statement: 'an executionId the server never returned is refused',
    kinds: ['continuation'],
    vary: (control) => ({ ...control, body: { ...control.body, executionId: 'conformance-unknown-execution' } }),
  },
  {
    rule: 'AGENT-INACTIVE',
    statement: 'an agent that is not active is refused',
    needs: ['inactiveAgentId'],
    kinds: BOTH,
    vary: (control, target) => ({ ...control, agentId: target.inactiveAgentId }),
  },
  {
    rule: 'AGENT-FOREIGN-LOCATION',
    statement: 'an agent run for a location not its own is refused',
    needs: ['foreignLocationId'],
    kinds: BOTH,
    vary: (control, target) => ({ ...control, body: { ...control.body, locationId: target.foreignLocationId } }),
  },
  {
    rule: 'AGENT-UNKNOWN',
    statement: 'an agentId that names no agent is refused',
    kinds: BOTH,
    vary: (control) => ({ ...control, agentId: 'conformance-unknown-agent' }),
  },
];

/**
 * The control of a refusal on a path and request kind: a valid first message, or a valid continuation of a session
 * started for it. The deprecated path's are guaranteed by §3 and §4.3; the replacement's shapes are not shown.
 */
async function controlRequest(api: Api, target: Target, path: ExecutePath, kind: Kind) {
  const session = kind === 'continuation' ? { executionId: (await startSession(api, 'the session the control continues', path)).executionId } : {};
  const request = { path, body: body(target, session) };
  const guarantee = path === 'replacement' ? 'not guaranteed' : kind === 'continuation' ? 'SESSION-CONTINUE' : 'SESSION-START';
  requireControl(await api.execute(`a valid ${kind} on the ${path} path (the control)`, request), `a valid ${kind} on the ${path} path`, guarantee);
  return request;
}

/** What a property asks of each reply of a session, with what it saw of the earlier ones; an expect that fails breaks the rule. */
type ReplyCheck = (reply: Reply, turn: number, label: string) => void;

/** The rules checked on every reply of a session of the execution's domain; `check` is made anew for each session. */
const SESSION_PROPERTIES: { rule: PropertyRule; statement: string; check: () => ReplyCheck }[] = [
  {
    rule: 'SESSION-INTERACTION-NEW',
    statement: 'every exchange of a session on either path gets a new interactionId',
    check: () => {
      const seen: unknown[] = [];
      return (reply, turn, label) => {
        const interactionId = field(reply, 'interactionId');
        expect(seen, `interactionId ${String(interactionId)} of exchange ${turn} among those of the earlier exchanges (${label})`).not.toContain(interactionId);
        seen.push(interactionId);
      };
    },
  },
  {
    rule: 'EXEC-RESPONSE-SCHEMA',
    statement: 'every reply of a session has the eleven fields of §2.4 with their types',
    check: () => (reply, turn, label) => expect(reply.json(), `the reply to exchange ${turn} (${label})`).toMatchSchema('execution-response'),
  },
];

/**
 * A session of the request's length on its path, each reply checked (the model's sessions carry the optional parts of
 * §2.3 at any turn, every reply judged by the same rules). A refused exchange on the deprecated path fails the rule
 * that guarantees it; on the replacement, whose shapes are not shown, the request does not apply.
 */
async function sessionHolds(api: Api, target: Target, request: Case, label: string, check: ReplyCheck): Promise<CaseOutcome> {
  const path = request.path as ExecutePath;
  let session: Record<string, unknown> = {};
  for (let turn = 1; turn <= Number(request.turns); turn++) {
    const reply = await api.execute(`exchange ${turn}, ${label}`, { path, body: body(target, session) });
    const executionId = field(reply, 'executionId');
    if (!accepted(reply) || (turn === 1 && typeof executionId !== 'string')) {
      if (path === 'replacement') return { notApplicable: `exchange ${turn} on the replacement path answered ${reply.status}, without a session to continue` };
      return { refusedControl: reply, what: `exchange ${turn} of a session`, guaranteedBy: turn === 1 ? 'SESSION-START' : 'SESSION-CONTINUE' };
    }
    session = { executionId: session.executionId ?? executionId };
    check(reply, turn, label);
  }
}

test.describe('agent execution', () => {
  test(...rule('EXEC-RESPONSE-SCHEMA', 'the first reply of a session has the eleven fields of §2.4 with their types'), async ({ api }) => {
    const reply = await api.execute('first message of a session');
    requireAccepted(reply, 'the first message of a session', 'SESSION-START');
    expect(reply.json()).toMatchSchema('execution-response');
  });

  test(...rule('EXEC-CONTENT-TYPE', 'the execution reply is application/json'), async ({ api }) => {
    const reply = await api.execute('first message of a session');
    requireAccepted(reply, 'the first message of a session', 'SESSION-START');
    expect(reply).toHaveJsonContentType();
  });

  test(...rule('EXEC-SUCCESS', 'an accepted execution reports success true'), async ({ api }) => {
    const reply = await api.execute('first message of a session');
    requireAccepted(reply, 'the first message of a session', 'SESSION-START');
    expect(field(reply, 'success'), 'success of an accepted execution').toBe(true);
  });

  test(...rule('SESSION-START', 'a message without executionId is accepted and the reply carries an executionId'), async ({ api }) => {
    const reply = await api.execute('first message of a session');
    expect(reply).toBeAcceptance();
    expect(field(reply, 'executionId'), 'executionId of the first reply: a non-empty string').toEqual(expect.stringMatching(/\S/));
  });

  test(...rule('SESSION-CONTINUE', 'a message sending the executionId back is answered in the same session'), async ({ api, target }) => {
    const { executionId } = await startSession(api, 'first message of a session');
    const reply = await api.execute('second message of the session', { body: body(target, { executionId }) });
    expect(reply).toBeAcceptance();
    expect(field(reply, 'executionId'), 'executionId of the continuation: the one of the first reply').toBe(executionId);
  });

  for (const property of SESSION_PROPERTIES) {
    test(...rule(property.rule, property.statement), async ({ api, target }) => {
      const space = spaceOf(property.rule);
      await forEvery(space, (request) => sessionHolds(api, target, request, describeCase(request, variedOf(space)), property.check()));
    });
  }

  test(...rule('SESSION-INTERACTION-UNIQUE', 'the exchanges of two sessions never share an interactionId'), async ({ api, target }) => {
    const interactionIds: unknown[] = [];
    for (const session of ['A', 'B']) {
      const { reply, executionId } = await startSession(api, `exchange 1 of session ${session}`);
      const next = await api.execute(`exchange 2 of session ${session}`, { body: body(target, { executionId }) });
      requireAccepted(next, 'the continuation of a session', 'SESSION-CONTINUE');
      interactionIds.push(field(reply, 'interactionId'), field(next, 'interactionId'));
    }
    expect(interactionIds, 'interactionIds of sessions A and B, in order').toEqual([...new Set(interactionIds)]);
  });

  test(...rule('SESSION-START', 'sessions started before and after a continuation get different executionIds'), async ({ api, target }) => {
    const first = await startSession(api, 'first message of session A');
    const second = await startSession(api, 'first message of session B');
    requireAccepted(await api.execute('a continuation of session A', { body: body(target, { executionId: first.executionId }) }), 'the continuation of a session', 'SESSION-CONTINUE');
    const third = await startSession(api, 'first message of session C');
    const ids = [first.executionId, second.executionId, third.executionId];
    expect(ids, 'executionIds of sessions A, B and C').toEqual([...new Set(ids)]);
  });

  for (const row of REFUSALS) {
    for (const path of ['deprecated', 'replacement'] as const) {
      for (const kind of row.kinds) {
        test(...rule(row.rule, `${row.statement} (${kind}, ${path})`), async ({ api, target }) => {
          requireSettings(target, row.needs ?? []);
          const control = await controlRequest(api, target, path, kind);
          expect(await api.execute(row.statement, row.vary(control, target))).toBeRefusal();
        });
      }
    }
  }

  // Absent required fields are MUST rules with faults on continuations; the others are about reading the body, one
  // reading for both kinds of request, so they are sent as first messages; a field of the wrong type on the paths that
  // cover every pair of field, type and path (variantPlaces).
  for (const { variant, place: path } of variantPlaces(variantsOf('execution-request', 'an execution'), ['deprecated', 'replacement'] as const)) {
    for (const kind of variant.kind === 'absent' ? BOTH : (['first message'] as const)) {
      test(...rule(variant.rule, `${variant.statement} (${variant.kind === 'absent' ? `${kind}, ` : ''}${path})`), async ({ api, target }) => {
        const control = await controlRequest(api, target, path, kind);
        const reply = await api.execute(variant.statement, { ...control, body: variant.apply(control.body) });
        if (variant.expect === 'observed') observe(`${variant.statement.replace(/ is observed$/, '')} on the ${path} path: ${outcome(reply)}`);
        else expect(reply).toBeRefusal();
      });
    }
  }

  for (const row of EXECUTION_OPTIONAL_FIELDS) {
    const accepted = row.rule === 'EXEC-OPTIONAL-FIELDS';
    test(...rule(row.rule, `an execution with ${row.field} set is ${accepted ? 'accepted' : 'observed'}`), async ({ api, target }) => {
      requireAccepted(await api.execute(`a valid execution without ${row.field}`), 'a valid execution', 'SESSION-START');
      const reply = await api.execute(`a valid execution with ${row.field}`, { body: body(target, { [row.field]: row.value(target) }) });
      if (accepted) expect(reply).toBeAcceptance();
      else observe(`an execution with ${row.field}=${JSON.stringify(row.value(target))}: ${outcome(reply)}`);
    });
  }

  test(...rule('AGENT-SOURCE', 'an execution with source=public_api is accepted'), async ({ api }) => {
    requireAccepted(await api.execute('a valid execution without source'), 'a valid execution', 'SESSION-START');
    const reply = await api.execute('execution with source=public_api', { query: { source: 'public_api' } });
    expect(reply).toBeAcceptance();
  });

  // §2.3 names internal among source's values; a server may still refuse a public caller that claims the internal
  // channel, for security: a choice the contract's words cover, so a warning, never silence.
  test(...rule('AGENT-SOURCE-INTERNAL', 'an execution with source=internal, a value §2.3 names, is accepted'), async ({ api }) => {
    requireControl(await api.execute('execution with source=public_api (the control)', { query: { source: 'public_api' } }), 'an execution with source=public_api', 'AGENT-SOURCE');
    const reply = await api.execute('execution with source=internal', { query: { source: 'internal' } });
    expect(reply, 'source=internal, an example value of §2.3, refused: a server guarding the internal channel from public callers may choose so').toBeAcceptance();
  });
});
