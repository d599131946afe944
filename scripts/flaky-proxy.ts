// A flaky network in front of a server, to prove that the suite retries the network's faults and never judges them:
// it forwards every request to the target and, at the rates given, answers 503 itself (as a gateway does: no
// Retry-After) or resets the connection before any byte of an answer. Loopback only, and bounded: at most `maxFaults`
// faults in all and never more than two in a row, so that a client's bounded retries always get through.
//
//   npx tsx scripts/flaky-proxy.ts http://127.0.0.1:4010 --unavailable 0.03 --reset 0.01 [--port 4020] [--seed 1]
import { createServer, request as forward, type Server } from 'node:http';
import { parseArgs } from 'node:util';

export interface FlakyOptions {
  /** Where requests go: an http://127.0.0.1 or http://localhost origin. */
  target: string;
  /** Fraction of requests answered 503 by the proxy. */
  unavailable: number;
  /** Fraction of requests whose connection is reset before any answer. */
  reset: number;
  port?: number;
  seed?: number;
  maxFaults?: number;
}

export interface FlakyProxy {
  address: string;
  /** Requests seen, and faults injected of each kind. */
  counts: { requests: number; unavailable: number; reset: number };
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** mulberry32: the same faults on the same requests for the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function startFlakyProxy(options: FlakyOptions): Promise<FlakyProxy> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:' || !LOOPBACK.has(target.hostname)) throw new Error(`the flaky proxy forwards to loopback only (http://127.0.0.1:<port>), not ${options.target}`);
  for (const [name, rate] of [['unavailable', options.unavailable], ['reset', options.reset]] as const) {
    if (!(rate >= 0 && rate <= 0.5)) throw new Error(`--${name} ${rate} is not a fraction between 0 and 0.5 (the share of requests given that fault)`);
  }
  const next = random(options.seed ?? 1);
  const maxFaults = options.maxFaults ?? 1000;
  const counts = { requests: 0, unavailable: 0, reset: 0 };
  let inARow = 0;
  const server: Server = createServer((incoming, outgoing) => {
    counts.requests += 1;
    const draw = next();
    const fault = counts.unavailable + counts.reset >= maxFaults || inARow >= 2 ? undefined
      : draw < options.reset ? 'reset'
      : draw < options.reset + options.unavailable ? 'unavailable'
      : undefined;
    inARow = fault === undefined ? 0 : inARow + 1;
    if (fault === 'reset') {
      counts.reset += 1;
      // Read the request to its end first, so that the client sees the reset, not a refused write.
      incoming.resume();
      incoming.on('end', () => incoming.socket.resetAndDestroy());
      return;
    }
    if (fault === 'unavailable') {
      counts.unavailable += 1;
      incoming.resume();
      incoming.on('end', () => outgoing.writeHead(503, { 'content-type': 'text/html', connection: 'close' }).end('<html><body>503 Service Unavailable</body></html>'));
      return;
    }
    const upstream = forward(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.headersSent ? outgoing.destroy() : outgoing.writeHead(502).end());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    address: `http://127.0.0.1:${port}`,
    counts,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

if (process.argv[1]?.endsWith('flaky-proxy.ts')) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { unavailable: { type: 'string', default: '0.03' }, reset: { type: 'string', default: '0.01' }, port: { type: 'string', default: '4020' }, seed: { type: 'string', default: '1' } },
  });
  if (positionals.length !== 1) throw new Error('usage: flaky-proxy.ts <http://127.0.0.1:port of the server> [--unavailable 0.03] [--reset 0.01] [--port 4020] [--seed 1]');
  const proxy = await startFlakyProxy({ target: positionals[0], unavailable: Number(values.unavailable), reset: Number(values.reset), port: Number(values.port), seed: Number(values.seed) });
  console.log(`BASE_URL=${proxy.address}   (flaky proxy to ${positionals[0]}: ${values.unavailable} answered 503, ${values.reset} reset)`);
  const report = () => console.log(`flaky proxy: ${proxy.counts.requests} requests, ${proxy.counts.unavailable} answered 503, ${proxy.counts.reset} reset`);
  process.on('SIGINT', () => {
    report();
    void proxy.close().then(() => process.exit(0));
  });
  process.on('SIGTERM', () => {
    report();
    void proxy.close().then(() => process.exit(0));
  });
}
