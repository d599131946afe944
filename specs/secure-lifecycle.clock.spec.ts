// Secure attachments, permanent URLs and the dated change: every check here depends on the server's clock. With a
// test clock a test moves it (the clock fixture puts it back); without one, a check that needs time to pass skips
// with the reason, unless the opt-in slow project (SUITE_SLOW=1) really waits.
import type { Api } from '../src/api.ts';
import { SECURE_PUBLIC_WINDOW_SECONDS as HOUR } from '../src/contract.ts';
import { absoluteUrls, offeredUrls, slugOf, urlsByFile } from '../src/discover.ts';
import { expect, observe, requireAccepted, rule, test } from '../src/suite.ts';
import { testFile, type TestFile } from '../src/test-files.ts';

/** Readings of "from 30 November 2026" agree on these: before in every time zone, and after in every one. */
const BEFORE_CUTOVER = '2026-11-29T09:00:00Z';
const AFTER_CUTOVER = '2026-11-30T12:00:00Z';
/** Margins around the end of the one-hour window: wide enough for a server whose clock runs, narrow enough to see a minute off. */
const JUST_BEFORE_THE_HOUR = HOUR - 30;
const PAST_THE_HOUR = HOUR + 30;

/**
 * Uploads one file and answers its URL: the only URL offered, else the one serving its bytes.
 * Skips when the upload itself failed, which UPLOAD-ACCEPTED judges.
 */
async function uploadOne(api: Api, file: TestFile, secure: boolean | 'unset' = 'unset'): Promise<string> {
  const fields = secure === 'unset' ? api.uploadFields() : api.uploadFields({ isSecureAttachment: String(secure) });
  const reply = await api.upload(`upload ${file.name}`, { fields, files: [file] });
  requireAccepted(reply, `the upload of ${file.name}`, 'UPLOAD-ACCEPTED');
  const offered = absoluteUrls(reply.json());
  const url = offered.length === 1 ? offered[0] : (await urlsByFile(api, offered, [file])).get(file.name);
  test.skip(url === undefined, `prerequisite failed: no URL of the upload could be told to be ${file.name}'s (judged by UPLOAD-URL-PER-FILE)`);
  return url as string;
}

/** The slug of a secure URL; skips when the URL does not have the secure form. */
function requireSlug(url: string): string {
  const slug = slugOf(url);
  test.skip(slug === undefined, `prerequisite failed: ${url} is not of the form /files/d/{slug} (judged by SECURE-URL-FORM)`);
  return slug as string;
}

/** An offered URL that serves the file's bytes anonymously, if any. */
async function servingUrl(api: Api, urls: string[], file: TestFile): Promise<string | undefined> {
  return (await urlsByFile(api, urls, [file])).get(file.name);
}

/** The signed URL serving a secure file whose public hour is over; skips when no signed URL serves it. */
async function signedAfterTheHour(api: Api, slug: string, file: TestFile): Promise<string> {
  const reply = await api.signedUrlFor('ask for a signed URL with files.readonly', slug, 'filesReadonly');
  const signed = await servingUrl(api, offeredUrls(reply), file);
  test.skip(signed === undefined, 'prerequisite failed: no signed URL served the file (judged by SECURE-SIGNED-URL)');
  return signed as string;
}

test.describe('secure attachment lifecycle', () => {
  test(...rule('SECURE-URL-FORM', 'a secure upload URL has the form /files/d/{slug}'), async ({ api }) => {
    const url = await uploadOne(api, testFile('secure-form.png'), true);
    expect(url).toBeSecureAttachmentUrl();
  });

  test(...rule('SECURE-PUBLIC-WINDOW', 'a secure URL serves anonymously from the upload to just before the hour ends'), async ({ api, travel }) => {
    const file = testFile('secure-window.pdf');
    const url = await uploadOne(api, file, true);
    expect.soft(await api.anonymous('read at once', url)).toServeBytesOf(file);
    await travel.pass(JUST_BEFORE_THE_HOUR);
    expect.soft(await api.anonymous(`read ${JUST_BEFORE_THE_HOUR} s after the upload`, url)).toServeBytesOf(file);
  });

  test(...rule('SECURE-PRIVATE-AFTER', 'a secure URL refuses anonymous reads after the hour'), async ({ api, travel }) => {
    const file = testFile('secure-after.pdf');
    const url = await uploadOne(api, file, true);
    await travel.pass(PAST_THE_HOUR);
    expect(await api.anonymous(`read ${PAST_THE_HOUR} s after the upload`, url)).toWithholdBytesOf(file);
  });

  test(...rule('SECURE-SIGNED-URL', 'a files.readonly token gets a signed URL serving the exact bytes'), async ({ api, travel }) => {
    const file = testFile('secure-signed.docx');
    const slug = requireSlug(await uploadOne(api, file, true));
    await travel.pass(PAST_THE_HOUR);
    const reply = await api.signedUrlFor('ask for a signed URL with files.readonly', slug, 'filesReadonly');
    expect(reply.status, `GET /files/d/{slug} with files.readonly answered ${reply.status}`).toBeLessThan(400);
    const signed = await servingUrl(api, offeredUrls(reply), file);
    expect(signed, `none of the URLs offered (${offeredUrls(reply).length}) served the exact bytes of ${file.name}`).toBeDefined();
  });

  test(...rule('SECURE-SCOPE-REQUIRED', 'a token lacking files.readonly gets no signed URL'), async ({ api, travel }) => {
    const file = testFile('secure-scope.pdf');
    const slug = requireSlug(await uploadOne(api, file, true));
    await travel.pass(PAST_THE_HOUR);
    const reply = await api.signedUrlFor('ask for a signed URL without files.readonly', slug, 'noFilesScope');
    expect(reply).toBeRefusal();
  });

  test(...rule('SECURE-UNKNOWN-SLUG', 'an unknown slug is refused'), async ({ api }) => {
    expect(await api.signedUrlFor('ask for the signed URL of an unknown slug', 'conformance-unknown-slug', 'filesReadonly')).toBeRefusal();
  });

  test(...rule('SECURE-SIGNED-EXPIRES', 'a signed URL stops serving within the hour'), async ({ api, travel }) => {
    const file = testFile('signed-expiry.pdf');
    const slug = requireSlug(await uploadOne(api, file, true));
    await travel.pass(PAST_THE_HOUR);
    const signed = await signedAfterTheHour(api, slug, file);
    await travel.pass(HOUR);
    expect(await api.anonymous('read the signed URL an hour later', signed)).toWithholdBytesOf(file);
  });

  test(...rule('SECURE-SIGNED-BOUND', 'a signed URL does not serve another slug'), async ({ api, travel }) => {
    const mine = testFile('signed-mine.pdf');
    const other = testFile('signed-other.pdf');
    const slug = requireSlug(await uploadOne(api, mine, true));
    const otherSlug = requireSlug(await uploadOne(api, other, true));
    await travel.pass(PAST_THE_HOUR);
    const signed = await signedAfterTheHour(api, slug, mine);
    test.skip(!signed.includes(slug), 'the signed URL does not name its slug, so it cannot be pointed at another one');
    const swapped = signed.split(slug).join(otherSlug);
    expect(await api.anonymous('the signed URL with the other slug', swapped)).toWithholdBytesOf(other);
  });

  test(...rule('SECURE-SIGNED-TAMPER', 'a tampered signed URL is refused'), async ({ api, travel }) => {
    const file = testFile('signed-tamper.pdf');
    const slug = requireSlug(await uploadOne(api, file, true));
    await travel.pass(PAST_THE_HOUR);
    const tampered = tamper(await signedAfterTheHour(api, slug, file));
    test.skip(tampered === undefined, 'the signed URL has no query parameter to alter');
    expect(await api.anonymous('the signed URL with its longest parameter altered', tampered as string)).toWithholdBytesOf(file);
  });
});

/** Alters one character of the longest query value: where signatures live on every common storage. */
function tamper(url: string): string | undefined {
  const parsed = new URL(url);
  const [name, value] = [...parsed.searchParams].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
  if (name === undefined || !value) return undefined;
  const last = value.at(-1) as string;
  parsed.searchParams.set(name, value.slice(0, -1) + (last === 'A' ? 'B' : 'A'));
  return parsed.href;
}

test.describe('permanent URLs before the change of 30 November 2026', () => {
  test(...rule('PERMANENT-URL-ANONYMOUS', 'a non-secure upload URL serves the exact bytes with no headers'), async ({ api, travel }) => {
    await travel.ensureRegime('before', BEFORE_CUTOVER);
    const file = testFile('permanent.csv');
    const url = await uploadOne(api, file);
    const read = await api.anonymous('read without any credential or Version', url);
    expect(read).toServeBytesOf(file);
    observe(`content type of a .csv: ${read.headers['content-type'] ?? '(none)'}`);
  });

  test(...rule('PERMANENT-URL-LASTS', 'a non-secure upload URL still serves after the hour'), async ({ api, travel }) => {
    await travel.ensureRegime('before', BEFORE_CUTOVER);
    const file = testFile('permanent-lasts.txt');
    const url = await uploadOne(api, file, false);
    await travel.pass(PAST_THE_HOUR);
    expect(await api.anonymous('read after the hour', url)).toServeBytesOf(file);
  });

  test(...rule('FILE-CONTENT-TYPE', 'the content type of served files is observed'), async ({ api, travel }) => {
    await travel.ensureRegime('before', BEFORE_CUTOVER);
    for (const name of ['photo.png', 'doc.pdf', 'image.svg']) {
      const read = await api.anonymous(`read ${name}`, await uploadOne(api, testFile(name)));
      const headers = ['content-type', 'content-disposition', 'x-content-type-options'].map((h) => `${h}: ${read.headers[h] ?? '(none)'}`);
      observe(`${name} → ${headers.join(', ')}`);
    }
  });
});

test.describe('the change of 30 November 2026', () => {
  const cases = [
    { id: 'CUTOVER-ALL-SECURE', flag: 'unset', statement: 'from 30 November 2026 an upload without the flag is secure' },
    { id: 'CUTOVER-FLAG-IGNORED', flag: false, statement: 'from 30 November 2026 isSecureAttachment=false is ignored' },
  ] as const;
  for (const { id, flag, statement } of cases) {
    test(...rule(id, statement), async ({ api, travel }) => {
      await travel.ensureRegime('after', AFTER_CUTOVER);
      const file = testFile(`cutover-${String(flag)}.pdf`);
      const url = await uploadOne(api, file, flag);
      expect.soft(url).toBeSecureAttachmentUrl();
      await travel.pass(PAST_THE_HOUR);
      expect.soft(await api.anonymous('read after the hour', url)).toWithholdBytesOf(file);
    });
  }

  test(...rule('CUTOVER-INSTANT', 'the instant the regime changes is observed'), async ({ api, travel, clock }) => {
    const instants = clock.movable
      ? ['2026-11-29T09:59:59Z', '2026-11-29T23:59:59Z', '2026-11-30T00:00:00Z', '2026-11-30T11:59:59Z', '2026-11-30T12:00:00Z']
      : [new Date(await clock.now()).toISOString()];
    for (const instant of instants) {
      if (clock.movable) await travel.jumpTo(instant);
      const reply = await api.upload(`upload without the flag at ${instant}`, { files: [testFile(`instant-${instant}.png`)] });
      const secure = offeredUrls(reply).some((url) => slugOf(url) !== undefined);
      observe(`${instant}: ${reply.status}, ${secure ? 'secure /files/d/{slug}' : 'not secure'}`);
    }
  });
});
