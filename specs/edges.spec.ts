// What a server breaks only at the edge of a dimension, past what its caches or stores keep, or with steps at once:
// an empty file, a long name, two files of one name, more files and sessions than a small store holds (the oldest
// used again), two uploads or first messages in flight together, a read of a secure URL once it was signed. Where the
// contract sets no limit a refusal is allowed (the test says so and skips); an acceptance binds.
import { accepted, type Api, type Reply } from '../src/client/api.ts';
import { offeredUrls, slugOf, urlsServing } from '../src/checks/discover.ts';
import { EXECUTION_OPTIONAL_FIELDS, REGIME_INSTANTS } from '../src/checks/requests.ts';
import { MAX_FILES_PER_UPLOAD } from '../src/contract/contract.ts';
import { atOnce, expect, observe, prerequisiteFailed, requireAccepted, requireControl, requireSettings, rule, sessionStarted, test } from '../src/suite.ts';
import { type TestFile, testFile } from '../src/files/test-file.ts';

/** More files than a location's store of 50 would keep, and more sessions than an agent's cache of 16. */
const FILES_PAST_A_STORE = 60;
const SESSIONS_PAST_A_CACHE = 20;

/** The files of `files` no URL of `reply` serves (UPLOAD-URL-PER-FILE). */
async function unserved(api: Api, reply: Reply, files: readonly TestFile[]): Promise<string[]> {
  const served = await urlsServing(api, offeredUrls(reply), files);
  return files.filter((file) => !served.has(file.name)).map((file) => file.name);
}

/** `count` more files uploaded into the location, five at a time, after the ones under test. */
async function uploadMore(api: Api, stem: string, count: number, secure: boolean): Promise<void> {
  const fields = secure ? api.uploadFields({ isSecureAttachment: 'true' }) : api.uploadFields();
  for (let from = 0; from < count; from += MAX_FILES_PER_UPLOAD) {
    const files = Array.from({ length: Math.min(MAX_FILES_PER_UPLOAD, count - from) }, (_, i) => testFile(`${stem}-${from + i + 1}.txt`, 64 + from + i));
    requireAccepted(await api.upload(`${files.length} more files (from the ${from + 1}th)`, { fields, files }), 'a valid upload', 'UPLOAD-ACCEPTED');
  }
}

/** A secure upload of `file` to the email conversation and its slug; a refusal or a URL of another form fails the rule that guarantees it. */
async function secureUpload(api: Api, file: TestFile): Promise<{ reply: Reply; slug: string }> {
  const reply = await api.upload(`a secure upload of ${file.name}`, { fields: api.uploadFields({ isSecureAttachment: 'true' }), files: [file] });
  requireAccepted(reply, 'a secure upload to the email conversation', 'UPLOAD-ACCEPTED');
  const slug = offeredUrls(reply).map(slugOf).find((found) => found !== undefined) ?? prerequisiteFailed('SECURE-URL-FORM', 'the secure upload offered no URL of the form /files/d/{slug}');
  return { reply, slug };
}

const executionIdOf = (reply: Reply) => (reply.json() as { executionId?: unknown } | undefined)?.executionId;

test.describe('edges, volume and steps at once', () => {
  test(...rule('UPLOAD-URL-PER-FILE', 'an accepted empty file is served under its URL, empty'), async ({ api }) => {
    const files = [testFile('empty.txt', 0)];
    const reply = await api.upload('an upload of a file of no bytes', { files });
    test.skip(!accepted(reply), `not applicable: the empty file was refused (${reply.status}); the contract sets no least size`);
    expect(await unserved(api, reply, files), 'the files no URL of the answer serves').toEqual([]);
  });

  test(...rule('UPLOAD-URL-PER-FILE', 'an accepted file with a 250-byte name is served under its URL'), async ({ api }) => {
    // The contract bounds no name; servers commonly keep 255 bytes. One of 120 and one of 250, each its own upload.
    for (const length of [120, 250]) {
      const files = [testFile(`${'long-name-'.repeat(30).slice(0, length - 4)}.txt`, 200 + length)];
      const reply = await api.upload(`an upload of a file with a ${length}-byte name`, { files });
      if (!accepted(reply)) continue;
      expect.soft(await unserved(api, reply, files), `a ${length}-byte name: the files no URL of the answer serves`).toEqual([]);
    }
  });

  // RFC 3986 §2.2: '#', '?', '%', '&', '+', ';', '=' and brackets delimit a URL's parts, and a name put in a URL
  // unescaped gives one that reaches another resource or none. Before the change, where an upload without the flag
  // gets a permanent URL, which may hold its name; each name its own upload, since a server may refuse any of them.
  test(...rule('UPLOAD-URL-PER-FILE', 'an accepted file named with URL delimiters is served under its URL'), async ({ api, clock, travel }) => {
    if (clock.movable) await travel.jumpTo(REGIME_INSTANTS.before);
    const names = ['hash #1.txt', 'query ?a=b.txt', 'percent 100% %41.txt', 'and & plus + semi ;.txt', "brackets [1] 'q'.txt"];
    const refused: string[] = [];
    for (const [i, name] of names.entries()) {
      const files = [testFile(name, 140 + i)];
      const reply = await api.upload(`an upload of a file named ${JSON.stringify(name)}`, { files });
      if (!accepted(reply)) refused.push(`${JSON.stringify(name)} (${reply.status})`);
      else expect.soft(await unserved(api, reply, files), `a file named ${JSON.stringify(name)}: the files no URL of the answer serves`).toEqual([]);
    }
    test.skip(refused.length === names.length, `not applicable: every such name was refused (${refused.join(', ')}); the contract bounds no name`);
    if (refused.length > 0) observe(`refused, as the contract allows: ${refused.join(', ')}`);
  });

  test(...rule('UPLOAD-URL-PER-FILE', 'two files of one name in one upload each get a URL serving their bytes'), async ({ api }) => {
    // Same name, other bytes: a server keyed by name keeps one of them.
    const files = [testFile('same-name.pdf', 300), testFile('same-name.pdf', 301)];
    const reply = await api.upload('an upload of two files of one name', { files });
    test.skip(!accepted(reply), `not applicable: two files of one name were refused (${reply.status}); the contract does not say names differ`);
    const served = new Set((await atOnce(offeredUrls(reply).map((url) => () => api.offered('a URL of the answer, read anonymously', url)))).flatMap((read) => (read && accepted(read) ? [read.body] : [])).map((body) => body.toString('base64')));
    const missing = files.filter((file) => !served.has(file.bytes.toString('base64'))).map((file) => `${file.name} (${file.bytes.length} bytes)`);
    expect(missing, 'the files of one name whose bytes no URL of the answer serves').toEqual([]);
  });

  test(...rule('UPLOAD-URL-PER-FILE', `the first files of a location are served after ${FILES_PAST_A_STORE} more`), async ({ api }) => {
    const files = [testFile('first-of-many-1.pdf', 310), testFile('first-of-many-2.png', 320)];
    const reply = await api.upload('the first upload', { files });
    requireAccepted(reply, 'a valid upload', 'UPLOAD-ACCEPTED');
    await uploadMore(api, 'many', FILES_PAST_A_STORE, false);
    expect(await unserved(api, reply, files), `the first files no URL serves after ${FILES_PAST_A_STORE} more`).toEqual([]);
  });

  test(...rule('SECURE-SIGNED-URL', `the first secure file of a location is signed after ${FILES_PAST_A_STORE} more`), async ({ api }) => {
    const file = testFile('first-secure.pdf', 330);
    const { slug } = await secureUpload(api, file);
    await uploadMore(api, 'many-secure', FILES_PAST_A_STORE, true);
    const signed = await api.signedUrlFor('the signed URL of the first secure file, with files.readonly', slug, 'filesReadonly');
    expect((await urlsServing(api, offeredUrls(signed), [file])).has(file.name), `a URL offered by GET /files/d/{slug} (${signed.status}) serving ${file.name}`).toBe(true);
  });

  test(...rule('SECURE-SIGNED-URL', 'a signed URL still serves once later ones were issued in its location'), async ({ api }) => {
    // A later grant must not undo an earlier one within its life: a key rotated per grant, a slot reused.
    const files = [testFile('signed-first.pdf', 360), testFile('signed-second.pdf', 361), testFile('signed-third.pdf', 362)];
    const slugs: string[] = [];
    for (const file of files) slugs.push((await secureUpload(api, file)).slug);
    const grants = [];
    // The first file's twice, then the others': each grant read again after all of them were issued.
    for (const i of [0, 0, 1, 2]) grants.push({ file: files[i], reply: await api.signedUrlFor(`a signed URL of ${files[i].name}, with files.readonly`, slugs[i], 'filesReadonly') });
    for (const [n, { file, reply }] of grants.entries()) {
      expect.soft((await urlsServing(api, offeredUrls(reply), [file])).has(file.name), `grant ${n + 1} (${file.name}), read after every grant: a URL it offered serving the file`).toBe(true);
    }
  });

  test(...rule('SECURE-PUBLIC-WINDOW', 'a secure URL still serves anonymously in its hour once it was signed'), async ({ api }) => {
    const file = testFile('signed-early.pdf', 340);
    const { reply, slug } = await secureUpload(api, file);
    const url = (await urlsServing(api, offeredUrls(reply), [file])).get(file.name) ?? prerequisiteFailed('UPLOAD-URL-PER-FILE', 'no URL of the secure upload served its bytes');
    await api.signedUrlFor('a signed URL, asked for at once with files.readonly', slug, 'filesReadonly');
    expect(await api.anonymous('the secure URL, read anonymously once signed', url)).toServeBytesOf(file);
  });

  test(...rule('UPLOAD-FILES-MAX', 'two uploads of three files sent at once are both accepted'), async ({ api }) => {
    // Five files at most per upload, not per location at a time: six in flight together are two valid uploads.
    const [first, second] = ['at-once-a', 'at-once-b'].map((stem) => Array.from({ length: 3 }, (_, i) => testFile(`${stem}-${i + 1}.pdf`, 350 + i)));
    const replies = await atOnce([first, second].map((files, i) => () => api.upload(`upload ${i + 1} of two at once`, { files })));
    for (const [i, reply] of replies.entries()) expect.soft(reply, `upload ${i + 1} of two sent at once`).toBeAcceptance();
    for (const [i, reply] of replies.entries()) {
      if (accepted(reply)) expect.soft(await unserved(api, reply, [first, second][i]), `upload ${i + 1}: its files no URL of its answer serves`).toEqual([]);
    }
  });

  test(...rule('SESSION-START', 'two first messages sent at once each start a session of their own'), async ({ api }) => {
    const [first, second] = (await atOnce([1, 2].map((n) => () => api.execute(`first message ${n} of two at once`)))).map(sessionStarted);
    expect(second, 'the executionId of the second session: a new session, not the first one').not.toBe(first);
  });

  // §3 starts a session with any request without executionId, whatever else it names: a server that keys sessions by
  // the contact (or by any other part a first message sends) hands the second its first's session.
  for (const row of EXECUTION_OPTIONAL_FIELDS.filter((field) => field.rule === 'EXEC-OPTIONAL-FIELDS')) {
    test(...rule('SESSION-START', `a first message with the same ${row.field} as one before starts a new session`), async ({ api, target }) => {
      const body = { message: `a first message with ${row.field}`, locationId: target.locationId, [row.field]: row.value(target) };
      const ids: string[] = [];
      for (const n of [1, 2]) {
        const reply = await api.execute(`first message ${n} with the same ${row.field}`, { body });
        requireAccepted(reply, `a first message with ${row.field}`, row.rule);
        ids.push(sessionStarted(reply));
      }
      expect(ids[1], `the executionId of the second first message with the same ${row.field}: a new session, not the first one`).not.toBe(ids[0]);
    });
  }

  test(...rule('SESSION-CONTINUE', `the first of ${SESSIONS_PAST_A_CACHE} sessions of an agent is still continued`), async ({ api, target }) => {
    const ids: string[] = [];
    for (let n = 1; n <= SESSIONS_PAST_A_CACHE; n++) ids.push(sessionStarted(await api.execute(`first message of session ${n}`)));
    // The oldest first, then one from the middle: a cache of the latest sessions has lost both.
    for (const n of [1, SESSIONS_PAST_A_CACHE / 2]) {
      const reply = await api.execute(`a continuation of session ${n}`, { body: { message: 'again', locationId: target.locationId, executionId: ids[n - 1] } });
      requireAccepted(reply, `a continuation of session ${n}`, 'SESSION-CONTINUE');
      expect.soft(executionIdOf(reply), `the executionId of the continuation of session ${n}`).toBe(ids[n - 1]);
    }
  });

  test(...rule('SESSION-CONTINUE', 'a session whose messages hold any Unicode text is continued in it'), async ({ api, target }) => {
    // Beyond the BMP (an emoji: a surrogate pair in UTF-16), right-to-left, combining marks, a NUL escape, a long line.
    const messages = ['Hello 👋🏽 from the suite 🧪', 'مرحبا — שלום', 'e\u0301 n\u0303 \u0000 tab\there', 'x'.repeat(4000)];
    const id = sessionStarted(await api.execute('a first message of Unicode text', { body: { message: messages[0], locationId: target.locationId } }));
    for (const message of messages) {
      const reply = await api.execute(`a continuation with ${JSON.stringify(message.slice(0, 24))}`, { body: { message, locationId: target.locationId, executionId: id } });
      requireAccepted(reply, 'a continuation of a session', 'SESSION-CONTINUE');
      expect.soft(executionIdOf(reply), `the executionId of the continuation with ${JSON.stringify(message.slice(0, 24))}`).toBe(id);
    }
  });

  test(...rule('SESSION-OTHER-TOKEN', 'a session started with ACCESS_TOKEN is continued with PIT_TOKEN'), async ({ api, target }) => {
    requireSettings(target, ['pit']);
    // Whether the execute endpoint takes a PIT is not shown (§5 item 8): its own first message is the control.
    requireControl(await api.execute('a first message with PIT_TOKEN (the control)', { auth: 'pit' }), 'a first message with PIT_TOKEN', 'not guaranteed');
    const id = sessionStarted(await api.execute('a first message with ACCESS_TOKEN'));
    const reply = await api.execute('its continuation with PIT_TOKEN', { auth: 'pit', body: { message: 'again', locationId: target.locationId, executionId: id } });
    expect(reply, 'the continuation by another valid token of the location').toBeAcceptance();
    expect(executionIdOf(reply), 'the executionId of the continuation').toBe(id);
  });
});
