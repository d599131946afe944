// Entry point: `npm run serve`. Listens on 127.0.0.1 and prints the variables that point the suite here.
import { worldOf } from './world.ts';
import { atAddress, environmentOf } from '../src/config/config.ts';
import { redactUrl } from '../src/config/redact.ts';
import { loadServerConfig, SERVER_SETTINGS, type ServerConfig } from './config.ts';
import { TEST_CLOCK_PATH } from './plugins/test-clock.ts';
import { listenReference } from './listen.ts';

let config: ServerConfig;
try {
  config = loadServerConfig();
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const { address, filesOrigin, close } = await listenReference(
  {
    seed: config.seed,
    testClock: config.testClock,
    style: config.style,
    fault: config.fault,
    seedData: config.seedData,
    throttle: config.throttle,
    logger: {
      level: config.logLevel,
      // Signed URLs carry their signature in the query: logs show it redacted.
      serializers: { req: (req: { method: string; url: string }) => ({ method: req.method, url: redactUrl(req.url) }) },
    },
  },
  { host: '127.0.0.1', port: config.port },
).catch((error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  // One line a user can act on, rather than the stack trace of a port in use.
  const { env } = SERVER_SETTINGS.port;
  console.error(`Port ${config.port} on 127.0.0.1 is taken: set ${env} to another one (${env}=0 picks a free one).`);
  process.exit(1);
});

const target = atAddress(worldOf(config.seedData), address, config.testClock ? TEST_CLOCK_PATH : undefined);
const lines = environmentOf(target).map(([name, value]) => `${name}=${value}`);
const files = filesOrigin === undefined ? '' : `, files on ${filesOrigin}`;
process.stdout.write(
  `# Reference server on ${address}${files} (style ${config.style}, seed ${config.seed ?? 'random'}, test clock ${config.testClock ? 'on' : 'off'}, fault ${config.fault ?? 'none'}).\n` +
    `# These are the simulator's own local credentials. Point the suite here with:\n${lines.join('\n')}\n`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void close().then(() => process.exit(0));
  });
}
