// The transport's own client (src/client/transport.ts, sendByNode): a chunked body goes without a Content-Length,
// and an answer a server compressed unasked is read decompressed, as Playwright's request context reads it.
import { request } from '@playwright/test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Transport } from '../client/transport.ts';
import { testFile } from '../files/test-file.ts';

test('a chunked upload has no Content-Length and comes whole; a gzip answer is read decompressed', async () => {
  let seen: { headers: IncomingMessage['headers']; bytes: number } | undefined;
  const server = createServer((incoming, answer) => {
    let bytes = 0;
    incoming.on('data', (chunk: Buffer) => (bytes += chunk.length));
    incoming.on('end', () => {
      seen = { headers: incoming.headers, bytes };
      answer.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ ok: true })));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const context = await request.newContext();
  try {
    const transport = new Transport(context, 10_000, {});
    const file = testFile('chunked.pdf', 4000);
    const form = new FormData();
    form.append('locationId', 'loc-1');
    form.append('fileAttachment', transport.filePart(file), file.name);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/conversations/messages/upload`;
    const answer = await transport.fetch({ method: 'POST', url, headers: {}, multipart: form, chunked: true });
    assert.equal(seen?.headers['content-length'], undefined);
    assert.equal(seen?.headers['transfer-encoding'], 'chunked');
    assert.match(String(seen?.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.ok((seen?.bytes ?? 0) > file.bytes.length, `${seen?.bytes} bytes: the whole form, its file in it`);
    assert.deepEqual(JSON.parse(answer.body.toString('utf8')), { ok: true });
  } finally {
    await context.dispose();
    server.close();
  }
});
