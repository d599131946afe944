// Entry point: `npm run serve`. Listens on 127.0.0.1 and prints the variables that point the suite here.
import { redactUrl } from '../src/redact.ts';
import { parseFault } from './faults.ts';
import { referenceEnvironment } from './environment.ts';
import { buildServer } from './server.ts';
import { loadSeed } from './world.ts';

const env = process.env;
const port = Number(env.PORT ?? 4010);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT=${env.PORT} is not a port number (the reference server's listening port, default 4010)`);
  process.exit(2);
}

let fault;
try {
  fault = parseFault(env.FAULT);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const testClock = env.TEST_CLOCK === '1';
// THROTTLE=<max>/<seconds>[/<429|503>]: answer with Retry-After past that many requests in that window.
const throttleMatch = /^(\d+)\/(\d+(?:\.\d+)?)(?:\/(429|503))?$/.exec(env.THROTTLE ?? '');
if (env.THROTTLE && !throttleMatch) {
  console.error(`THROTTLE=${env.THROTTLE} is not <max>/<seconds>[/429|503] (answer with Retry-After past that many requests)`);
  process.exit(2);
}
const throttle = throttleMatch
  ? { max: Number(throttleMatch[1]), windowMs: Number(throttleMatch[2]) * 1000, status: Number(throttleMatch[3] ?? 429) as 429 | 503 }
  : undefined;
const seedData = loadSeed(env.SEED_FILE || undefined);
const app = await buildServer({
  seed: env.SEED || undefined,
  testClock,
  fault,
  seedData,
  throttle,
  logger: {
    level: env.LOG_LEVEL ?? 'info',
    // Signed URLs carry their signature in the query: logs show it redacted.
    serializers: { req: (req: { method: string; url: string }) => ({ method: req.method, url: redactUrl(req.url) }) },
  },
});
const address = await app.listen({ host: '127.0.0.1', port });

const lines = referenceEnvironment(seedData, address, testClock).map(([name, value]) => `${name}=${value}`);
process.stdout.write(
  `# Reference server on ${address} (seed ${env.SEED ?? 'random'}, test clock ${testClock ? 'on' : 'off'}, fault ${fault ?? 'none'}).\n` +
    `# These are the simulator's own local credentials. Point the suite here with:\n${lines.join('\n')}\n`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
