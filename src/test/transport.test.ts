// The transport's own client (src/client/transport.ts, sendByNode): a chunked body goes without a Content-Length,
// and an answer a server compressed unasked is read decompressed, as Playwright's request context reads it; redirects
// are followed as Playwright's request context follows them (sendFollowing); a form is the bytes it sends (encodeForm).
import { request } from '@playwright/test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { FormPart } from '../client/form.ts';
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
  try {
    const transport = new Transport(10_000, {});
    const file = testFile('chunked.pdf', 4000);
    const form = [{ name: 'locationId', value: 'loc-1' }, { name: 'fileAttachment', file }];
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/conversations/messages/upload`;
    const answer = await transport.fetch({ method: 'POST', url, headers: {}, multipart: form, chunked: true });
    assert.equal(seen?.headers['content-length'], undefined);
    assert.equal(seen?.headers['transfer-encoding'], 'chunked');
    assert.match(String(seen?.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.ok((seen?.bytes ?? 0) > file.bytes.length, `${seen?.bytes} bytes: the whole form, its file in it`);
    assert.deepEqual(JSON.parse(answer.body.toString('utf8')), { ok: true });
  } finally {
    server.close();
  }
});

test('redirects are followed as Playwright follows them: a POST after a 302 or 303 as a GET without its body, after a 307 as it was; no token to another origin; 0 follows none; 20 at most', async () => {
  const seen: { port: number; method: string; url: string; authorization?: string; type?: string; body: string }[] = [];
  const listen = async (answer: (url: string, origin: (port: number) => string) => [number, string?]) => {
    const server = createServer((incoming, reply) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      incoming.on('end', () => {
        const port = (server.address() as AddressInfo).port;
        seen.push({ port, method: incoming.method ?? '', url: incoming.url ?? '', authorization: incoming.headers.authorization, type: incoming.headers['content-type'], body });
        const [status, location] = answer(incoming.url ?? '', (other) => `http://127.0.0.1:${other}`);
        reply.writeHead(status, location ? { location } : {}).end(`at ${incoming.url}`);
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    return { server, port: (server.address() as AddressInfo).port };
  };
  const elsewhere = await listen(() => [200]);
  const here = await listen((url, origin) => {
    const hops = /^\/loop\/(\d+)$/.exec(url);
    if (hops) return [302, `/loop/${Number(hops[1]) + 1}`];
    return ({ '/see-other': [303, '/landed'], '/found': [302, '/landed'], '/temporary': [307, '/landed'], '/away': [302, `${origin(elsewhere.port)}/landed`] } as Record<string, [number, string]>)[url] ?? [200];
  });
  try {
    const transport = new Transport(10_000, {});
    const base = `http://127.0.0.1:${here.port}`;
    const post = (path: string, maxRedirects?: number) => transport.fetch({ method: 'POST', url: `${base}${path}`, headers: { authorization: 'Bearer tok' }, data: { a: 1 }, maxRedirects });
    const landed = (from: number) => seen.slice(from).map(({ port, method, url, authorization, type, body }) => ({ where: port === here.port ? 'here' : 'elsewhere', method, url, authorization, type, body }));

    for (const path of ['/see-other', '/found']) {
      const from = seen.length;
      const answer = await post(path);
      assert.equal(answer.status, 200);
      assert.equal(answer.url, `${base}/landed`);
      assert.deepEqual(landed(from)[1], { where: 'here', method: 'GET', url: '/landed', authorization: 'Bearer tok', type: undefined, body: '' }, path);
    }
    let from = seen.length;
    await post('/temporary');
    assert.deepEqual(landed(from)[1], { where: 'here', method: 'POST', url: '/landed', authorization: 'Bearer tok', type: 'application/json', body: '{"a":1}' });
    from = seen.length;
    await post('/away');
    assert.deepEqual(landed(from)[1], { where: 'elsewhere', method: 'GET', url: '/landed', authorization: undefined, type: undefined, body: '' });
    from = seen.length;
    const unfollowed = await post('/found', 0);
    assert.equal(unfollowed.status, 302);
    assert.equal(landed(from).length, 1);
    await assert.rejects(transport.fetch({ method: 'GET', url: `${base}/loop/0`, headers: {} }), /Max redirect count exceeded/);
    assert.equal(seen.filter(({ url }) => url.startsWith('/loop/')).length, 21, 'the first request and 20 redirects');
  } finally {
    here.server.close();
    elsewhere.server.close();
  }
});

test("a form is the bytes Playwright's request context sends but its boundary: parts in order, a file of the type its Blob declares, else its name's; after a 302 a GET without it", async () => {
  const bodies: { method: string; type: string; body: Buffer }[] = [];
  const server = createServer((incoming, reply) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      bodies.push({ method: incoming.method ?? '', type: incoming.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      reply.writeHead(incoming.url === '/found' ? 302 : 200, incoming.url === '/found' ? { location: '/landed' } : {}).end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const form: FormPart[] = [
    { name: 'locationId', value: 'loc-1' },
    { name: 'fileAttachment', file: testFile('a.PDF', 300) },
    { name: 'fileAttachment', file: testFile('b.png', 200), type: 'text/plain' },
    { name: 'fileAttachment', file: testFile('no-extension', 100) },
    { name: 'fileAttachment', file: testFile('say "hi"\r\n.txt', 50) },
    { name: 'attachmentUrls', value: '["https://example.test/é"]' },
  ];
  // The same form as a FormData, as Playwright's request context takes it.
  const formData = new FormData();
  for (const part of form) {
    if ('value' in part) formData.append(part.name, part.value);
    else formData.append(part.name, new Blob([part.file.bytes], { type: part.type }), part.file.name);
  }
  const context = await request.newContext();
  try {
    await context.post(`${base}/upload`, { multipart: formData });
    await new Transport(10_000, {}).fetch({ method: 'POST', url: `${base}/upload`, headers: {}, multipart: form });
    const [playwright, ours] = bodies.map(({ type, body }) => {
      const boundary = /boundary=(.+)$/.exec(type)?.[1] ?? assert.fail(`no boundary in ${type}`);
      return { type: type.replace(boundary, 'B'), body: body.toString('latin1').split(boundary).join('B') };
    });
    assert.deepEqual(ours, playwright);
    assert.match(ours.body, /filename="a\.PDF"\r\ncontent-type: application\/pdf\r\n/);
    assert.match(ours.body, /filename="b\.png"\r\ncontent-type: text\/plain\r\n/);

    await new Transport(10_000, {}).fetch({ method: 'POST', url: `${base}/found`, headers: {}, multipart: form });
    assert.deepEqual(bodies.slice(2).map(({ method, type, body }) => [method, type, body.length]), [
      ['POST', bodies[2].type, bodies[2].body.length],
      ['GET', '', 0],
    ]);
  } finally {
    await context.dispose();
    server.close();
  }
});

// Issue 46: a gateway that redirects every path without a trailing slash to the path with one (308 or 307 keep the
// method and body, RFC 9110 §15.4.8-9). Every shape of request lands at the new path: the same bytes, the same framing,
// and a body sent in two goes still has the other request in flight beside it there.
test('every request shape follows a 307 or 308 with its method, bytes and framing: plain, chunked, in two goes; a hop to the same resource even where none is followed', async () => {
  type Seen = { method: string; url: string; chunked: boolean; length?: string; body: Buffer; at: number; done: number };
  const seen: Seen[] = [];
  // `late`: the redirect answered once the whole body has come (a server that reads before it routes), not on the head.
  const server = createServer((incoming, reply) => {
    const url = incoming.url ?? '';
    const status = url.includes('307') ? 307 : 308;
    const redirect = !url.split('?')[0].endsWith('/');
    const entry: Seen = { method: incoming.method ?? '', url, chunked: incoming.headers['transfer-encoding'] === 'chunked', length: incoming.headers['content-length'], body: Buffer.alloc(0), at: Date.now(), done: 0 };
    seen.push(entry);
    const chunks: Buffer[] = [];
    if (redirect && !url.includes('late')) reply.writeHead(status, { location: `${url.split('?')[0]}/${url.includes('?') ? `?${url.split('?')[1]}` : ''}` }).end();
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      entry.body = Buffer.concat(chunks);
      entry.done = Date.now();
      if (redirect && url.includes('late')) reply.writeHead(status, { location: `${url}/` }).end();
      else if (!redirect) reply.writeHead(200, { 'content-type': 'text/plain' }).end(`at ${url}`);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const transport = new Transport(10_000, {});
  const form = (name: string): FormPart[] => [{ name: 'locationId', value: 'loc-1' }, { name: 'fileAttachment', file: testFile(name, 3000) }];
  const arrived = (path: string) => seen.filter((entry) => entry.url.split('?')[0] === path);
  try {
    for (const status of [307, 308]) {
      // A plain request, JSON and a form, a query kept.
      const json = await transport.fetch({ method: 'POST', url: `${base}/execute-${status}?q=1`, headers: { authorization: 'Bearer tok' }, data: { a: 1 } });
      assert.deepEqual([json.status, json.url, arrived(`/execute-${status}/`).map((e) => [e.method, e.url, e.body.toString()])], [200, `${base}/execute-${status}/?q=1`, [['POST', `/execute-${status}/?q=1`, '{"a":1}']]]);
      // In chunks, without a Content-Length, at every hop: the same bytes at the new path.
      const chunked = await transport.fetch({ method: 'POST', url: `${base}/chunked-${status}`, headers: {}, multipart: form('chunked.pdf'), chunked: true });
      const second = arrived(`/chunked-${status}/`)[0];
      assert.equal(chunked.status, 200);
      assert.deepEqual([second.method, second.chunked, second.length], ['POST', true, undefined]);
      assert.ok(second.body.length > 3000, `the whole form at the new path: ${second.body.length} bytes`);
      // In two goes: the other request comes while the body is held at the new path, not at the first one.
      let other: { url: string; at: number } | undefined;
      const twoGoes = await transport.fetch({
        method: 'POST', url: `${base}/together-${status}`, headers: {}, multipart: form('together.pdf'),
        meanwhile: async () => (other = { url: (await transport.fetch({ method: 'GET', url: `${base}/other-${status}/`, headers: {} })).url, at: Date.now() }),
      });
      const held = arrived(`/together-${status}/`)[0];
      assert.equal(twoGoes.status, 200);
      assert.equal(twoGoes.meanwhileMissed, undefined);
      assert.ok(other !== undefined && held.at < other.at && other.at <= held.done, `the other request answered while the body was held at the new path (${held.at} < ${other?.at} <= ${held.done})`);
      assert.ok(held.body.length > 3000);
    }
    // A redirect only once the whole body had come: the overlap was at the first URL, and the answer says so.
    const late = await transport.fetch({ method: 'POST', url: `${base}/late`, headers: {}, multipart: form('late.pdf'), meanwhile: () => transport.fetch({ method: 'GET', url: `${base}/other-late/`, headers: {} }) });
    assert.deepEqual([late.status, late.meanwhileMissed], [200, true]);
    // Told to follow none (a signed URL handed over as a redirect stays visible), a hop to the same resource still goes.
    const same = await transport.fetch({ method: 'GET', url: `${base}/files/d/slug-1`, headers: {}, maxRedirects: 0 });
    assert.deepEqual([same.status, same.url], [200, `${base}/files/d/slug-1/`]);
  } finally {
    server.close();
  }
});
