import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { API_VERSION } from '../src/contract/contract.ts';
import { ajv } from '../src/contract/schemas.ts';
import { type Clock, systemClock, TestClock } from './clock.ts';
import type { Context, Session } from './context.ts';
import { ApiError } from './errors.ts';
import { FAULTS, type FaultName } from './faults.ts';
import { FileStore } from './file-store.ts';
import { Ids } from './ids.ts';
import { agentRoutes } from './plugins/agents.ts';
import { fileRoutes } from './plugins/files.ts';
import { oauthRoutes } from './plugins/oauth.ts';
import { testClockRoutes } from './plugins/test-clock.ts';
import { uploadRoutes } from './plugins/upload.ts';
import { DEFAULT_POLICY, type Refusal, refusalOf } from './policy.ts';
import { parseStyle, policyOfStyle } from './style.ts';
import { type Throttle, throttleHook } from './throttle.ts';
import { loadSeed, type SeedData, World } from './world.ts';

export interface ServerOptions {
  /** Derive ids, slugs and signatures from this seed (SEED); random when absent. */
  seed?: string;
  /** Serve the test-clock protocol at /__test/clock from `start` (epoch ms, default now); the style says how it behaves (frozen by default). */
  testClock?: boolean | { start: number };
  /** The choices where the contract is silent (STYLE): `default`, `alt`, or any point of the space (style.ts). */
  style?: string;
  /** Break exactly one rule (FAULT), in either style. */
  fault?: FaultName;
  /** Where a style that serves files from an origin of their own has them: see listen.ts. */
  filesOrigin?: string;
  /** The world: locations, conversations, contacts, agents, tokens. Default reference/seed.json. */
  seedData?: SeedData;
  logger?: FastifyServerOptions['logger'];
  /** Cut off clients that take longer than this to send a whole request. */
  requestTimeoutMs?: number;
  /** Answer `status` once more than `max` requests arrived within `windowMs` (THROTTLE), by real time: throttle.ts. */
  throttle?: Throttle;
}

export async function buildServer(options: ServerOptions = {}): Promise<FastifyInstance> {
  const policy = { ...DEFAULT_POLICY, ...policyOfStyle(parseStyle(options.style)), ...FAULTS.find((entry) => entry.name === options.fault)?.policy };
  const testClock = options.testClock
    ? new TestClock(typeof options.testClock === 'object' ? options.testClock.start : Date.now(), policy.clockHabit)
    : undefined;
  const clock: Clock = testClock ?? systemClock;
  if (policy.filesOrigin === 'assets' && options.filesOrigin === undefined) {
    throw new Error(`the ${options.style} style serves files from an origin of their own: start it with listenReference() (listen.ts), or pass filesOrigin`);
  }
  const files = await FileStore.create();
  const ctx: Context = {
    clock,
    testClock,
    ids: new Ids(options.seed, policy.idFormat),
    world: new World(options.seedData ?? loadSeed()),
    files,
    sessions: new Map<string, Session>(),
    signedSlugs: new Set<string>(),
    policy,
    filesOrigin: policy.filesOrigin === 'assets' ? options.filesOrigin : undefined,
  };
  const send = (reply: FastifyReply, refusal: Refusal) =>
    reply.code(refusal.status).type(refusal.type).send(typeof refusal.body === 'string' ? refusal.body : JSON.stringify(refusal.body));
  const refuse = (reply: FastifyReply, error: ApiError) => send(reply, refusalOf(policy, error, ctx.ids));

  const timeout = options.requestTimeoutMs ?? 60_000;
  const app = Fastify({
    logger: options.logger ?? false,
    // A trailing slash names the same resource, as on most servers and CDNs: the privacy checks try it.
    // and so does its path in any letter case (the privacy checks try it; parameters keep their case).
    // A URL it hands out serves its file whatever the name's length (a path parameter is 100 characters by default).
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false, maxParamLength: 2048 },
    // A request-target in absolute form names the same resource as its path (RFC 9112 §3.2.2: a server MUST accept it).
    rewriteUrl: (request) => (/^https?:\/\//i.test(request.url ?? '') ? new URL(request.url as string).pathname + new URL(request.url as string).search : (request.url ?? '/')),
    bodyLimit: 1024 * 1024,
    requestTimeout: timeout,
    connectionTimeout: timeout,
    // Node checks these limits only every 30 s and lets headers take 60 s: a client trickling bytes would outlive them.
    http: { headersTimeout: timeout, connectionsCheckingInterval: Math.max(100, Math.floor(timeout / 4)) },
  });
  // One strict ajv for the whole project: route schemas reference `schemas/*.schema.json` by $id.
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  const clockStart = testClock?.now();
  app.decorate('resetState', async () => {
    await files.clear();
    ctx.sessions.clear();
    ctx.signedSlugs.clear();
    ctx.world.reset();
    ctx.ids.reset();
    if (testClock && clockStart !== undefined) testClock.set(clockStart);
  });
  app.decorateRequest('token', undefined);

  if (options.throttle) {
    const { max, windowMs, status } = options.throttle;
    const error = new ApiError(status, status === 429 ? 'too_many_requests' : 'unavailable', `more than ${max} requests in ${windowMs} ms`);
    app.addHook('onRequest', throttleHook(options.throttle, () => clock.now(), ctx.policy.retryAfter, (reply) => refuse(reply, error)));
  }

  // A style may redirect every operation's path without a trailing slash to the path with one, whatever the method,
  // as gateways and web frameworks do (a 307 or 308 keeps method and body, RFC 9110 §15.4.8-9); never where a GET's
  // trailing slash is itself redirected away (canonicalRedirect), which would loop.
  if (policy.operationRedirect !== undefined) {
    const status = policy.operationRedirect;
    app.addHook('onRequest', async (request, reply) => {
      const [path, query] = splitQuery(request.url);
      const get = request.method === 'GET' || request.method === 'HEAD';
      if (request.routeOptions.config.version === undefined || path.endsWith('/') || (get && policy.canonicalRedirect !== undefined)) return;
      return reply.code(status).header('location', `${path}/${query}`).send();
    });
  }
  app.addHook('onRequest', async (request) => {
    const versioned = request.routeOptions.config.version;
    if (versioned === undefined || (versioned === 'with-token' && request.headers.authorization === undefined)) return;
    const version = request.headers.version;
    if (version === undefined) {
      if (ctx.policy.requireVersion) throw new ApiError(400, 'version_required', `the Version header is required; send Version: ${API_VERSION}`);
    } else if (version !== API_VERSION && !ctx.policy.acceptAnyVersion) {
      throw new ApiError(400, 'unknown_version', `unknown API version ${String(version)}; the published version is ${API_VERSION}`);
    }
  });
  // A style may redirect a non-canonical spelling of a GET (a trailing slash) to the canonical URL instead of serving it.
  if (policy.canonicalRedirect !== undefined) {
    const status = policy.canonicalRedirect;
    app.addHook('onRequest', async (request, reply) => {
      const [path, query] = splitQuery(request.url);
      if ((request.method === 'GET' || request.method === 'HEAD') && path.length > 1 && path.endsWith('/')) {
        return reply.code(status).header('location', `${path.replace(/\/+$/, '')}${query}`).send();
      }
    });
  }
  // The Date header follows the server's clock, so a suite without the test clock can still read it.
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('date', new Date(clock.now()).toUTCString());
    if (policy.cacheControl !== undefined && !reply.hasHeader('cache-control')) reply.header('cache-control', policy.cacheControl);
    return policy.compress ? compressed(request, reply, payload) : payload;
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof ApiError) return refuse(reply, error);
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      const code = error.code === 'FST_ERR_VALIDATION' ? 'invalid_body' : (error.code ?? 'bad_request');
      return refuse(reply, new ApiError(status, code, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return refuse(reply, new ApiError(500, 'internal', 'internal server error'));
  });
  app.setNotFoundHandler((request, reply) => refuse(reply, new ApiError(404, 'no_route', `no route ${request.method} ${request.url.split('?')[0]}`)));

  await app.register(uploadRoutes, { ctx });
  await app.register(fileRoutes, { ctx });
  await app.register(agentRoutes, { ctx });
  await app.register(oauthRoutes, { ctx });
  if (testClock) await app.register(testClockRoutes, { testClock });

  app.addHook('onClose', async () => files.close());
  return app;
}

const splitQuery = (url: string): [string, string] => {
  const at = url.indexOf('?');
  return at < 0 ? [url, ''] : [url.slice(0, at), url.slice(at)];
};

/** A whole answer gzip-encoded when the client accepts it (RFC 9110 §8.4); a partial one is left as it is. */
function compressed(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const accepts = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  if (!accepts || reply.statusCode === 206 || reply.statusCode === 204 || request.method === 'HEAD' || payload === null || payload === undefined) return payload;
  reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding').removeHeader('content-length');
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) return gzipSync(payload);
  return (payload as Readable).pipe(createGzip());
}
