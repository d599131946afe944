// The reference server's entry point reads its settings here, once, from the environment: one row per variable,
// each with its purpose, named in full when it is wrong. Only this module and src/config/config.ts read process.env.
import { type FaultName, parseFault } from './faults.ts';
import { parseStyle } from './style.ts';
import { parseThrottle, type Throttle, THROTTLE_FORMAT } from './throttle.ts';
import { loadSeed, type SeedData } from './world.ts';

export const SERVER_SETTINGS = {
  port: { env: 'PORT', purpose: "the reference server's listening port on 127.0.0.1 (0 picks a free one)", default: '4010' },
  seed: { env: 'SEED', purpose: 'derive ids, slugs and signatures from this seed; random when unset' },
  testClock: { env: 'TEST_CLOCK', purpose: '1 freezes the server clock and serves the test-clock protocol' },
  style: { env: 'STYLE', purpose: 'default, alt, gateway, or any followed by +dimension=value: the choices where the contract is silent (reference/style.ts, README)', default: 'default' },
  fault: { env: 'FAULT', purpose: 'break exactly one rule (reference/faults.ts), in either style' },
  seedFile: { env: 'SEED_FILE', purpose: 'the world: locations, conversations, contacts, agents, apps, tokens (default reference/seed.json)' },
  logLevel: { env: 'LOG_LEVEL', purpose: 'pino log level', default: 'info' },
  throttle: { env: 'THROTTLE', purpose: `${THROTTLE_FORMAT}: past that many requests in the window, answer 429 (or 503) with Retry-After in seconds (or as an HTTP-date), or tell the limit only in X-RateLimit-* headers; for all callers, or per token` },
} as const;

/** The variables the reference server reads: left out of the environment of a child the suite starts. */
export const SERVER_VARIABLES = Object.values(SERVER_SETTINGS).map((setting) => setting.env);

export interface ServerConfig {
  port: number;
  seed?: string;
  testClock: boolean;
  /** A point of the style space (style.ts). */
  style: string;
  fault?: FaultName;
  seedData: SeedData;
  logLevel: string;
  throttle?: Throttle;
}

/** The entry point's settings; throws one message naming every wrong variable with its purpose. */
export function loadServerConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const raw = (key: keyof typeof SERVER_SETTINGS) => {
    const value = env[SERVER_SETTINGS[key].env]?.trim();
    return value === undefined || value === '' ? (SERVER_SETTINGS[key] as { default?: string }).default : value;
  };
  const problems: string[] = [];
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      problems.push((error as Error).message);
      return undefined;
    }
  };
  const port = Number(raw('port'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT=${raw('port')} is not a port number (${SERVER_SETTINGS.port.purpose})`);
  const throttleText = raw('throttle');
  const throttle = throttleText === undefined ? undefined : parseThrottle(throttleText);
  if (throttleText !== undefined && !throttle) problems.push(`THROTTLE=${throttleText} is not ${SERVER_SETTINGS.throttle.purpose}`);
  attempt(() => parseStyle(raw('style')));
  const fault = attempt(() => parseFault(raw('fault')));
  const seedData = attempt(() => loadSeed(raw('seedFile')));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return {
    port,
    seed: raw('seed'),
    testClock: raw('testClock') === '1',
    style: raw('style') as string,
    fault,
    seedData: seedData as SeedData,
    logLevel: raw('logLevel') as string,
    throttle,
  };
}
