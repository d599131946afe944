// Agent execution of §4.3 on the deprecated path: the reply of §2.4, the session rule of §3, and the
// requests rules 1 and 2 forbid.
import type { Api, ExecuteRequest, Reply } from '../src/api.ts';
import type { Target } from '../src/config.ts';
import type { RuleId } from '../src/rules.ts';
import { expect, requireAccepted, rule, test } from '../src/suite.ts';

const MESSAGE = 'Hello from the conformance suite';

/** A valid §2.3 body for the configured location, with extra fields such as executionId. */
const body = (target: Target, extra: Record<string, unknown> = {}) => ({ message: MESSAGE, locationId: target.locationId, ...extra });

/** A field of a JSON object body; undefined when the body is not a JSON object. */
function field(reply: Reply, name: string): unknown {
  const json = reply.json();
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>)[name] : undefined;
}

/** Starts a session; a server that starts none is judged by SESSION-START, so the dependent test skips. */
async function startSession(api: Api, label: string): Promise<{ reply: Reply; executionId: string }> {
  const reply = await api.execute(label);
  requireAccepted(reply, 'the first message of a session', 'SESSION-START');
  const executionId = field(reply, 'executionId');
  test.skip(typeof executionId !== 'string' || executionId === '', 'prerequisite failed: the first reply of a session carried no executionId (judged by SESSION-START)');
  return { reply, executionId: executionId as string };
}

/** The unvaried request is accepted, so a verdict on a variation is about what the variation changes. */
async function requireValidExecution(api: Api): Promise<void> {
  requireAccepted(await api.execute('a valid execution, the baseline of the variation'), 'a valid execution', 'SESSION-START');
}

interface RefusalCase {
  rule: RuleId;
  statement: string;
  /** Optional configuration the case needs, and the skip reason when it is not set. */
  needs?: { setting: 'inactiveAgentId' | 'foreignLocationId'; unset: string };
  request: (target: Target) => ExecuteRequest;
}

const REFUSALS: RefusalCase[] = [
  {
    rule: 'SESSION-UNKNOWN',
    statement: 'an executionId the server never returned is refused',
    request: (target) => ({ body: body(target, { executionId: 'conformance-unknown-execution' }) }),
  },
  {
    rule: 'AGENT-INACTIVE',
    statement: 'an agent that is not active is refused',
    needs: { setting: 'inactiveAgentId', unset: 'INACTIVE_AGENT_ID is not set' },
    request: (target) => ({ agentId: target.inactiveAgentId }),
  },
  {
    rule: 'AGENT-FOREIGN-LOCATION',
    statement: 'an agent executed for a location it does not belong to is refused',
    needs: { setting: 'foreignLocationId', unset: 'FOREIGN_LOCATION_ID is not set' },
    request: (target) => ({ body: { message: MESSAGE, locationId: target.foreignLocationId } }),
  },
  {
    rule: 'AGENT-MESSAGE-REQUIRED',
    statement: 'an execution without message is refused',
    request: (target) => ({ body: { locationId: target.locationId } }),
  },
  {
    rule: 'AGENT-LOCATION-REQUIRED',
    statement: 'an execution without locationId is refused',
    request: () => ({ body: { message: MESSAGE } }),
  },
  {
    rule: 'AGENT-UNKNOWN',
    statement: 'an agentId that names no agent is refused',
    request: () => ({ agentId: 'conformance-unknown-agent' }),
  },
];

test.describe('agent execution', () => {
  test(...rule('EXEC-RESPONSE-SCHEMA', 'the first reply of a session has the eleven fields of §2.4 with their types'), async ({ api }) => {
    const reply = await api.execute('first message of a session');
    requireAccepted(reply, 'the first message of a session', 'SESSION-START');
    expect(reply.json()).toMatchSchema('execution-response');
  });

  test(...rule('EXEC-RESPONSE-SCHEMA', 'a continuation reply has the eleven fields of §2.4 with their types'), async ({ api, target }) => {
    const { executionId } = await startSession(api, 'first message of a session');
    const reply = await api.execute('second message of the session', { body: body(target, { executionId }) });
    requireAccepted(reply, 'the continuation of a session', 'SESSION-CONTINUE');
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

  test(...rule('SESSION-INTERACTION-NEW', 'three exchanges of one session get three different interactionIds'), async ({ api, target }) => {
    const { reply: first, executionId } = await startSession(api, 'exchange 1 of 3');
    const interactionIds = [field(first, 'interactionId')];
    for (const exchange of [2, 3]) {
      const reply = await api.execute(`exchange ${exchange} of 3`, { body: body(target, { executionId }) });
      requireAccepted(reply, 'the continuation of a session', 'SESSION-CONTINUE');
      interactionIds.push(field(reply, 'interactionId'));
    }
    expect(interactionIds, 'interactionIds of the three exchanges, in order').toEqual([...new Set(interactionIds)]);
  });

  test(...rule('SESSION-DISTINCT', 'two sessions started one after the other get different executionIds'), async ({ api }) => {
    const first = await startSession(api, 'first message of session A');
    const second = await startSession(api, 'first message of session B');
    expect(second.executionId, 'executionId of session B').not.toBe(first.executionId);
  });

  for (const row of REFUSALS) {
    test(...rule(row.rule, row.statement), async ({ api, target }) => {
      if (row.needs) test.skip(!target[row.needs.setting], row.needs.unset);
      await requireValidExecution(api);
      const reply = await api.execute(row.statement, row.request(target));
      expect(reply).toBeRefusal();
    });
  }

  test(...rule('AGENT-SOURCE', 'an execution with source=public_api is accepted'), async ({ api }) => {
    await requireValidExecution(api);
    const reply = await api.execute('execution with source=public_api', { query: { source: 'public_api' } });
    expect(reply).toBeAcceptance();
  });
});
