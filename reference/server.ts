import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { API_VERSION } from '../src/contract.ts';
import { ajv } from '../src/schemas.ts';
import { type Clock, systemClock, TestClock } from './clock.ts';
import type { Context, Session } from './context.ts';
import { ApiError, badRequest } from './errors.ts';
import { FAULTS, type FaultName } from './faults.ts';
import { FileStore } from './file-store.ts';
import { Ids } from './ids.ts';
import { agentRoutes } from './plugins/agents.ts';
import { fileRoutes } from './plugins/files.ts';
import { oauthRoutes } from './plugins/oauth.ts';
import { testClockRoutes } from './plugins/test-clock.ts';
import { uploadRoutes } from './plugins/upload.ts';
import { DEFAULT_POLICY } from './policy.ts';
import { loadSeed, type SeedData, World } from './world.ts';

export interface ServerOptions {
  /** Derive ids, slugs and signatures from this seed (SEED); random when absent. */
  seed?: string;
  /** Serve the test-clock protocol at /__test/clock and freeze time at `start` (epoch ms, default now). */
  testClock?: boolean | { start: number };
  /** Break exactly one rule (FAULT). */
  fault?: FaultName;
  /** The world: locations, conversations, contacts, agents, tokens. Default reference/seed.json. */
  seedData?: SeedData;
  logger?: FastifyServerOptions['logger'];
  /** Cut off clients that take longer than this to send a whole request. */
  requestTimeoutMs?: number;
  /** Answer `status` with Retry-After once more than `max` requests arrived within `windowMs` (THROTTLE), by real time. */
  throttle?: { max: number; windowMs: number; status: 429 | 503 };
}

export async function buildServer(options: ServerOptions = {}): Promise<FastifyInstance> {
  const testClock = options.testClock
    ? new TestClock(typeof options.testClock === 'object' ? options.testClock.start : Date.now())
    : undefined;
  const clock: Clock = testClock ?? systemClock;
  const files = await FileStore.create();
  const ctx: Context = {
    clock,
    testClock,
    ids: new Ids(options.seed),
    world: new World(options.seedData ?? loadSeed()),
    files,
    sessions: new Map<string, Session>(),
    policy: { ...DEFAULT_POLICY, ...FAULTS.find((entry) => entry.name === options.fault)?.policy },
  };

  const timeout = options.requestTimeoutMs ?? 60_000;
  const app = Fastify({
    logger: options.logger ?? false,
    // A trailing slash names the same resource, as on most servers and CDNs: the privacy checks try it.
    routerOptions: { ignoreTrailingSlash: true },
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
    ctx.world.reset();
    ctx.ids.reset();
    if (testClock && clockStart !== undefined) testClock.set(clockStart);
  });
  app.decorateRequest('token', undefined);

  if (options.throttle) {
    const { max, windowMs, status } = options.throttle;
    const arrivals: number[] = [];
    app.addHook('onRequest', async (_request, reply) => {
      const now = Date.now();
      while (arrivals.length > 0 && arrivals[0] <= now - windowMs) arrivals.shift();
      if (arrivals.length >= max) {
        const retryAfter = Math.max(1, Math.ceil((arrivals[0] + windowMs - now) / 1000));
        return reply
          .code(status)
          .header('retry-after', String(retryAfter))
          .send({ statusCode: status, error: status === 429 ? 'too_many_requests' : 'unavailable', message: `more than ${max} requests in ${windowMs} ms` });
      }
      arrivals.push(now);
    });
  }

  app.addHook('onRequest', async (request) => {
    const versioned = request.routeOptions.config.version;
    if (versioned === undefined || (versioned === 'with-token' && request.headers.authorization === undefined)) return;
    const version = request.headers.version;
    if (version === undefined) {
      if (ctx.policy.requireVersion) throw badRequest(`the Version header is required; send Version: ${API_VERSION}`);
    } else if (version !== API_VERSION && !ctx.policy.acceptAnyVersion) {
      throw badRequest(`unknown API version ${String(version)}; the published version is ${API_VERSION}`);
    }
  });
  // The Date header follows the server's clock, so a suite without the test clock can still read it.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('date', new Date(clock.now()).toUTCString());
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).send({ statusCode: error.statusCode, error: error.code, message: error.message });
    }
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return reply.code(status).send({ statusCode: status, error: error.code ?? 'bad_request', message: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ statusCode: 500, error: 'internal', message: 'internal server error' });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ statusCode: 404, error: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );

  await app.register(uploadRoutes, { ctx });
  await app.register(fileRoutes, { ctx });
  await app.register(agentRoutes, { ctx });
  await app.register(oauthRoutes, { ctx });
  if (testClock) await app.register(testClockRoutes, { testClock });

  app.addHook('onClose', async () => files.close());
  return app;
}
