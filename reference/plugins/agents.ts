import type { FastifyInstance, FastifyRequest } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEPRECATED_EXECUTE_PATH, REPLACEMENT_EXECUTE_PATH } from '../../src/contract/contract.ts';
import { authenticate, authorize } from '../auth.ts';
import type { Context, Session } from '../context.ts';
import { ApiError, badRequest, notFound, refuseFields } from '../errors.ts';
import type { ContinuedTurn, Policy } from '../policy.ts';
import type { Token } from '../world.ts';

export const EXECUTE_SCOPE = 'agent-studio.write';
/** RFC 9745 Deprecation date of the old path (1 January 2026). */
const DEPRECATED_SINCE = '@1767225600';

interface ExecutionBody {
  message: string;
  locationId: string;
  executionId?: string;
  [field: string]: unknown;
}

type ExecuteRequest = FastifyRequest<{ Params: { agentId: string }; Body: ExecutionBody; Querystring: { source?: string } }>;

/** An execution from its arrival to its answer, with the executions in flight beside it at some moment of that time. */
interface InFlight {
  readonly beside: Set<InFlight>;
  /** The session it continued, once handled. */
  continued?: string;
}

/** The body's own fields of a turn: the others are optional (§2.3). */
const REQUIRED_OR_SESSION = new Set(['message', 'locationId', 'executionId']);

/** `/agent/{agentId}/execute` in Fastify's notation. */
const routePath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

export async function agentRoutes(app: FastifyInstance, { ctx }: { ctx: Context }): Promise<void> {
  const inFlight = new Map<FastifyRequest, InFlight>();
  // A session's object is new after a reset, so its count goes with it.
  const refusals = new WeakMap<Session, number>();
  // One definition for every path: the deprecated one and the replacement's, the contract's and the platform's.
  for (const path of ctx.policy.executePaths) {
    const deprecated = path === DEPRECATED_EXECUTE_PATH;
    app.post<{ Params: { agentId: string }; Body: ExecutionBody; Querystring: { source?: string } }>(
      routePath(path),
      {
        config: { version: 'required' },
        onRequest: async (request) => {
          const me: InFlight = { beside: new Set(inFlight.values()) };
          for (const other of inFlight.values()) other.beside.add(me);
          inFlight.set(request, me);
        },
        onResponse: async (request, reply) => {
          inFlight.delete(request);
          const executionId = (request.body as Partial<ExecutionBody> | undefined)?.executionId;
          const session = typeof executionId === 'string' ? ctx.sessions.get(executionId) : undefined;
          if (session && reply.statusCode >= 400 && reply.statusCode < 500) refusals.set(session, (refusals.get(session) ?? 0) + 1);
        },
        schema: {
          body: { $ref: 'execution-request' },
          querystring: { type: 'object', properties: { source: { type: 'string', minLength: 1 } } },
        },
        // Authentication comes before the body is judged: a request without a token learns nothing else.
        preValidation: async (request: ExecuteRequest) => {
          const on = kindOf(request, deprecated);
          request.token = executionToken(request, on, ctx);
          bendBody(request, on, ctx);
        },
      },
      async (request, reply) => {
        const me = inFlight.get(request) as InFlight;
        if (ctx.policy.agentReplyMs > 0) await sleep(ctx.policy.agentReplyMs);
        const fields = Object.keys(request.body).filter((field) => !REQUIRED_OR_SESSION.has(field));
        const turnOf = (session: Session): ContinuedTurn => ({
          session,
          token: request.token as Token,
          fields,
          refusedBefore: refusals.get(session) ?? 0,
          beside: [...me.beside].some((other) => other.continued === session.executionId),
        });
        const result = execute(request, kindOf(request, deprecated), ctx, turnOf);
        me.continued = request.body.executionId;
        if (deprecated && ctx.policy.deprecationHeaders) {
          const base = `${request.protocol}://${request.host}`;
          const successor = routePath(REPLACEMENT_EXECUTE_PATH).replace(':agentId', encodeURIComponent(request.params.agentId));
          reply.header('deprecation', DEPRECATED_SINCE).header('link', `<${base}${successor}>; rel="successor-version"`);
        }
        if (ctx.policy.executionResponseType === 'text') return reply.type('text/plain').send(JSON.stringify(result));
        return result;
      },
    );
  }
}

type Kind = Parameters<Policy['skipsAgentCheck']>[1];

const kindOf = (request: ExecuteRequest, deprecated: boolean): Kind => ({
  path: deprecated ? 'deprecated' : 'replacement',
  continuation: typeof (request.body as Partial<ExecutionBody> | undefined)?.executionId === 'string',
});

function executionToken(request: ExecuteRequest, on: Kind, ctx: Context): Token {
  const session = on.continuation ? ctx.sessions.get(request.body.executionId as string) : undefined;
  if (session && request.headers.authorization === undefined && ctx.policy.skipsAgentCheck('token', on)) return session.token;
  try {
    return authenticate(request, ctx);
  } catch (error) {
    const unknownBearer = request.headers.authorization?.startsWith('Bearer ') && (error as ApiError).statusCode === 401;
    if (!(ctx.policy.executeAcceptsUnknownBearer && unknownBearer)) throw error;
    return { value: '', kind: 'oauth', owner: 'company', companyId: ctx.world.seed.companies[0].id, scopes: [EXECUTE_SCOPE] };
  }
}

/** The policies that change what the body validation sees. */
function bendBody(request: ExecuteRequest, on: Kind, ctx: Context): void {
  const body = request.body as Record<string, unknown> | undefined;
  if (body === null || typeof body !== 'object') return;
  const messageField = on.path === 'deprecated' ? 'message' : ctx.policy.replacementMessageField;
  if (messageField !== 'message') {
    if (typeof body[messageField] !== 'string') throw badRequest(`${messageField} is required`);
    body.message = body[messageField];
  }
  if (ctx.policy.skipsAgentCheck('message', on)) body.message ??= '';
  if (ctx.policy.crashOnMissingLocation && body.locationId === undefined) throw new TypeError("Cannot read properties of undefined (reading 'locationId')");
  if (ctx.policy.trimMessageUnchecked && body.message != null) body.message = (body.message as string).trim();
  if (ctx.policy.fillEmptyExecution && Object.keys(body).length === 0) Object.assign(body, { message: '', locationId: request.token?.locationId });
  refuseFields(body, ctx.policy.refusedFields);
}

function execute(request: ExecuteRequest, on: Kind, ctx: Context, turnOf: (session: Session) => ContinuedTurn) {
  const { message, locationId, executionId } = request.body;
  const agent =
    ctx.world.agent(request.params.agentId) ??
    (ctx.policy.substituteUnknownAgents ? ctx.world.seed.agents.find((a) => a.locationId === locationId) : undefined);
  if (!agent) throw notFound(`no agent ${request.params.agentId}`);
  // The token must reach the agent's own location; the body's locationId is then judged by the agent rule.
  authorize(request.token as Token, ctx, agent.locationId, EXECUTE_SCOPE);
  if (agent.locationId !== locationId && !ctx.policy.skipsAgentCheck('agent-location', on)) {
    throw new ApiError(403, 'agent_not_in_location', `agent ${agent.id} does not belong to location ${locationId}`);
  }
  if (agent.status !== 'active' && !ctx.policy.skipsAgentCheck('active', on)) {
    throw new ApiError(422, 'agent_inactive', `agent ${agent.id} is ${agent.status}, not active`);
  }
  if (request.query.source !== undefined && !ctx.policy.sourceAccepted(String(request.query.source))) throw badRequest(`source ${String(request.query.source)} is not accepted`);

  const contactId = typeof request.body.contactId === 'string' ? request.body.contactId : undefined;
  const session = continueOrStart(executionId, agent.id, request.token as Token, ctx, turnOf, contactId);
  session.turns += 1;
  const interactionId = ctx.policy.interactionIdsPerSession
    ? `int-${session.turns}`
    : !ctx.policy.newInteractionOnTurn(session.turns) && session.lastInteractionId
      ? session.lastInteractionId
      : ctx.ids.next('int');
  session.lastInteractionId = interactionId;

  const response = `Turn ${session.turns} with ${agent.name}: you said "${message}"`;
  const result: Record<string, unknown> = {
    success: ctx.policy.reportedSuccess,
    executionId: session.executionId,
    interactionId,
    response,
    goalCompletion: ctx.policy.goalCompletion,
    flowSwitch: false,
    ...ctx.policy.executionValues(response),
    ...ctx.policy.extraFields(ctx.ids),
  };
  if (!ctx.policy.sendGenerativeOutputs(session.turns)) delete result.generativeOutputs;
  return result;
}

/** §3: no executionId starts a session; a known one continues it. */
function continueOrStart(executionId: string | undefined, agentId: string, token: Token, ctx: Context, turnOf: (session: Session) => ContinuedTurn, contactId?: string): Session {
  if (executionId === undefined && ctx.policy.requireExecutionId) throw badRequest('executionId is required');
  const ofContact = executionId === undefined && contactId !== undefined && ctx.policy.sessionPerContact ? [...ctx.sessions.values()].find((s) => s.agentId === agentId && s.contactId === contactId) : undefined;
  if (ofContact) return latestTurn(ofContact, ctx);
  const known = executionId === undefined ? undefined : ctx.sessions.get(executionId);
  if (executionId !== undefined && known?.agentId !== agentId && ctx.policy.rejectUnknownSessions) {
    throw new ApiError(404, 'unknown_session', `no session ${executionId} for agent ${agentId}`);
  }
  if (known && ctx.policy.sessionBoundToToken && known.token.value !== token.value) throw new ApiError(403, 'session_of_another_token', 'this session was started by another token');
  if (known && known.agentId === agentId && ctx.policy.continueSessions && !ctx.policy.forksSession(turnOf(known))) return latestTurn(ctx.policy.continuesLatestSession ? [...ctx.sessions.values()].pop()! : known, ctx);
  const session: Session = {
    executionId: ctx.policy.fixedExecutionId ?? ctx.ids.next('exec'),
    agentId,
    token,
    turns: 0,
    ...(contactId === undefined ? {} : { contactId }),
  };
  return latestTurn(session, ctx);
}

/** The sessions stay in the order of their latest turns. */
function latestTurn(session: Session, ctx: Context): Session {
  ctx.sessions.delete(session.executionId);
  ctx.sessions.set(session.executionId, session);
  return session;
}
