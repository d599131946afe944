// Where the reference server listens: the API on one socket and, for a style that serves files from an origin of
// their own (as storage or a CDN would), a second socket for that origin on the same host. The entry point and the
// suite's fixture start it here; the reference tests use buildServer and inject alone.
import type { FastifyInstance } from 'fastify';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FaultName } from './faults.ts';
import { buildServer, type ServerOptions } from './server.ts';
import { parseStyle, policyOfStyle } from './style.ts';

export interface Listening {
  app: FastifyInstance;
  /** The API's origin, e.g. http://127.0.0.1:4010. */
  address: string;
  /** The files' own origin, when the style has one. */
  filesOrigin?: string;
  /**
   * Back to the starting state, with this fault from now on: a server of another fault is built afresh behind the
   * same sockets (the mutation run's trials share one worker's server, so one worker start serves many faults).
   */
  reset(fault: FaultName | undefined): Promise<void>;
  close(): Promise<void>;
}

export async function listenReference(options: Omit<ServerOptions, 'filesOrigin'>, at: { host: string; port: number }): Promise<Listening> {
  const ownOrigin = policyOfStyle(parseStyle(options.style)).filesOrigin === 'assets';
  const files = ownOrigin ? createServer() : undefined;
  if (files) await new Promise<void>((listening) => files.listen(0, at.host, listening));
  const filesOrigin = files ? `http://${at.host}:${(files.address() as AddressInfo).port}` : undefined;
  const app = await buildServer({ ...options, filesOrigin });
  // The server of the current fault answers both sockets (the API's is the first server's, with its timeouts); the
  // Host header tells the routes of the files' origin from the API's.
  let current = { app, fault: options.fault };
  const answer = (request: IncomingMessage, response: ServerResponse) => current.app.routing(request, response);
  app.server.removeAllListeners('request');
  app.server.on('request', answer);
  files?.on('request', answer);
  const reset = async (fault: FaultName | undefined) => {
    if (fault === current.fault) return current.app.resetState();
    const previous = current.app;
    if (fault === options.fault) {
      await app.resetState();
      current = { app, fault };
    } else {
      const next = await buildServer({ ...options, fault, filesOrigin });
      await next.ready();
      current = { app: next, fault };
    }
    if (previous !== app) await previous.close();
  };
  const close = async () => {
    files?.closeAllConnections();
    if (files) await new Promise((closed) => files.close(closed));
    if (current.app !== app) await current.app.close();
    await app.close();
  };
  try {
    return { app, address: await app.listen({ host: at.host, port: at.port }), filesOrigin, reset, close };
  } catch (error) {
    // A port in use (EADDRINUSE) leaves nothing behind: the files' socket and the store's directory go too.
    await close();
    throw error;
  }
}
