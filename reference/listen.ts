// Where the reference server listens: the API on one socket and, for a style that serves files from an origin of
// their own (as storage or a CDN would), a second socket for that origin on the same host. The entry point and the
// suite's fixture start it here; the reference tests use buildServer and inject alone.
import type { FastifyInstance } from 'fastify';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildServer, type ServerOptions } from './server.ts';
import { parseStyle, policyOfStyle } from './style.ts';

export interface Listening {
  app: FastifyInstance;
  /** The API's origin, e.g. http://127.0.0.1:4010. */
  address: string;
  /** The files' own origin, when the style has one. */
  filesOrigin?: string;
  close(): Promise<void>;
}

export async function listenReference(options: Omit<ServerOptions, 'filesOrigin'>, at: { host: string; port: number }): Promise<Listening> {
  const ownOrigin = policyOfStyle(parseStyle(options.style)).filesOrigin === 'assets';
  const files = ownOrigin ? createServer() : undefined;
  if (files) await new Promise<void>((listening) => files.listen(0, at.host, listening));
  const filesOrigin = files ? `http://${at.host}:${(files.address() as AddressInfo).port}` : undefined;
  const app = await buildServer({ ...options, filesOrigin });
  // Fastify's router answers both sockets; the Host header tells the routes of the files' origin from the API's.
  files?.on('request', (request, response) => app.routing(request, response));
  const close = async () => {
    files?.closeAllConnections();
    if (files) await new Promise((closed) => files.close(closed));
    await app.close();
  };
  try {
    return { app, address: await app.listen({ host: at.host, port: at.port }), filesOrigin, close };
  } catch (error) {
    // A port in use (EADDRINUSE) leaves nothing behind: the files' socket and the store's directory go too.
    await close();
    throw error;
  }
}
