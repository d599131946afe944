// Entry point: `npm run serve`. Listens on 127.0.0.1 and prints the variables that point the suite here.
import { API_VERSION } from '../src/contract.ts';
import { redactUrl } from '../src/redact.ts';
import { parseFault } from './faults.ts';
import { buildServer, TEST_CLOCK_PATH } from './server.ts';
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
const seedData = loadSeed(env.SEED_FILE || undefined);
const app = await buildServer({
  seed: env.SEED || undefined,
  testClock,
  fault,
  seedData,
  logger: {
    level: env.LOG_LEVEL ?? 'info',
    // Signed URLs carry their signature in the query: logs show it redacted.
    serializers: { req: (req: { method: string; url: string }) => ({ method: req.method, url: redactUrl(req.url) }) },
  },
});
const address = await app.listen({ host: '127.0.0.1', port });

const envName = (name: string, list: { env?: string; id?: string; value?: string }[]) =>
  list.find((item) => item.env === name);
const block: [string, string | undefined][] = [
  ['SUITE_MODE', 'live'],
  ['BASE_URL', address],
  ['API_VERSION', API_VERSION],
  ['LOCATION_ID', envName('LOCATION_ID', seedData.locations)?.id],
  ['CONVERSATION_ID', envName('CONVERSATION_ID', seedData.conversations)?.id],
  ['CONTACT_ID', envName('CONTACT_ID', seedData.contacts)?.id],
  ['AGENT_ID', envName('AGENT_ID', seedData.agents)?.id],
  ['INACTIVE_AGENT_ID', envName('INACTIVE_AGENT_ID', seedData.agents)?.id],
  ['FOREIGN_LOCATION_ID', envName('FOREIGN_LOCATION_ID', seedData.locations)?.id],
  ['ACCESS_TOKEN', envName('ACCESS_TOKEN', seedData.tokens)?.value],
  ['PIT_TOKEN', envName('PIT_TOKEN', seedData.tokens)?.value],
  ['FILES_READONLY_TOKEN', envName('FILES_READONLY_TOKEN', seedData.tokens)?.value],
  ['NO_FILES_SCOPE_TOKEN', envName('NO_FILES_SCOPE_TOKEN', seedData.tokens)?.value],
  ['TEST_CLOCK_URL', testClock ? `${address}${TEST_CLOCK_PATH}` : undefined],
];
const lines = block.filter(([, value]) => value !== undefined).map(([name, value]) => `${name}=${value}`);
process.stdout.write(
  `# Reference server on ${address} (seed ${env.SEED ?? 'random'}, test clock ${testClock ? 'on' : 'off'}, fault ${fault ?? 'none'}).\n` +
    `# These are the simulator's own local credentials. Point the suite here with:\n${lines.join('\n')}\n`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
