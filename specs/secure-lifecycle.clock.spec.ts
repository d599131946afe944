// Secure attachments, permanent URLs and the dated change: every check here depends on the server's clock. With a
// test clock a test moves it (the clock fixture puts it back); the opt-in slow project (SUITE_SLOW=1) really waits;
// against a live target without either, a check over time after an upload judges an upload an earlier run left
// once it has aged, and leaves its own for a later run (travel.afterUpload); with nothing aged yet it skips.
import { accepted, type Api } from '../src/client/api.ts';
import { SECURE_PUBLIC_WINDOW_SECONDS as HOUR, MAX_FILES_PER_UPLOAD } from '../src/contract/contract.ts';
import { offeredUrls, slugOf, urlsByFile, urlsServing } from '../src/checks/discover.ts';
import { anonymousLeaks, describeLeaks, routesShared, scopeFormRoutes } from '../src/checks/privacy.ts';
import { describeCase } from '../src/checks/property.ts';
import { REGIME_INSTANTS, uploadFieldsOf, uploadFilesOf, uploadSpace } from '../src/checks/requests.ts';
import { AFTERWARDS, type Case, PAST_32_BIT_SECONDS } from '../src/contract/domains.ts';
import { spaceOf, variedOf } from '../src/contract/generate.ts';
import { expect, forEvery, instantKeeper, observe, prerequisiteFailed, reachOf, requireAccepted, requireControl, rule, test } from '../src/suite.ts';
import { testFile, type TestFile } from '../src/files/test-file.ts';
import type { Uploaded } from '../src/time/aged-state.ts';
import type { Upload } from '../src/time/time-travel.ts';

const { before: BEFORE_CUTOVER, after: AFTER_CUTOVER } = REGIME_INSTANTS;
const DAY = 24 * HOUR;
/** Far from every edge: a month after the upload. */
const MONTH = 30 * DAY;

/**
 * Uploads the files and answers each one's URL (the only URL offered for a single file, else the one serving its
 * bytes) and the server's Date of the upload. A refused upload or a file left without a URL fails the rule that
 * guarantees it, and this test skips.
 */
async function uploadAll(api: Api, files: TestFile[], secure: boolean | 'unset' = 'unset'): Promise<Upload> {
  const fields = secure === 'unset' ? api.uploadFields() : api.uploadFields({ isSecureAttachment: String(secure) });
  const reply = await api.upload(`upload ${files.map((f) => f.name).join(', ')}`, { fields, files });
  requireAccepted(reply, `the upload of ${files.map((f) => f.name).join(', ')}`, 'UPLOAD-ACCEPTED');
  const offered = offeredUrls(reply);
  const byFile = files.length === 1 && offered.length === 1 ? new Map([[files[0].name, offered[0]]]) : await urlsServing(api, offered, files);
  const missing = files.filter((file) => !byFile.has(file.name)).map((file) => file.name);
  if (missing.length > 0) prerequisiteFailed('UPLOAD-URL-PER-FILE', `no URL of the upload served the bytes of ${missing.join(', ')}`);
  return { files, urls: files.map((file) => byFile.get(file.name) as string), date: reply.headers.date };
}

const uploadOne = async (api: Api, file: TestFile, secure: boolean | 'unset' = 'unset') => (await uploadAll(api, [file], secure)).urls[0];

/** Files at every position of an upload of the maximum count, each its own bytes. */
const everyPosition = (stem: string) => Array.from({ length: MAX_FILES_PER_UPLOAD }, (_, i) => testFile(`${stem}-${i + 1}.pdf`, 300 + i));

/** The slug of a secure URL; a URL of another form fails SECURE-URL-FORM, and this test skips. */
function requireSlug(url: string): string {
  return slugOf(url) ?? prerequisiteFailed('SECURE-URL-FORM', `the secure upload's URL ${url} is not of the form /files/d/{slug}`);
}

/** An offered URL that serves the file's bytes anonymously, where one must; none makes a URL that could not be reached an infrastructure error. */
async function servingUrl(api: Api, urls: string[], file: TestFile): Promise<string | undefined> {
  return (await urlsServing(api, urls, [file])).get(file.name);
}

/** The signed URL serving a secure file whose public hour is over; none fails SECURE-SIGNED-URL, and this test skips. */
async function signedAfterTheHour(api: Api, slug: string, file: TestFile): Promise<string> {
  const reply = await api.signedUrlFor('ask for a signed URL with files.readonly', slug, 'filesReadonly');
  return (await servingUrl(api, offeredUrls(reply), file)) ?? prerequisiteFailed('SECURE-SIGNED-URL', `no URL offered by GET /files/d/{slug} with files.readonly (${reply.status}) served the file`);
}

/**
 * No anonymous route reaches any file of the upload, each file by its URL as given and its share of the other routes
 * at this check (`turn`: routesShared): one hard assertion over every file's leaks, so that every leak is reported
 * and an edge check can set it aside.
 */
async function expectPrivate(api: Api, { files, urls }: Uploaded, when: string, turn: number): Promise<void> {
  const leaks: Record<string, string[]> = {};
  for (const [i, file] of files.entries()) {
    const found = describeLeaks(await anonymousLeaks(api, urls[i], file, routesShared(i, files.length, turn)));
    if (found.length > 0) leaks[file.name] = found;
  }
  expect(leaks, `routes by which a caller without files.readonly got the bytes of each file, ${when}`).toEqual({});
}

test.describe('secure attachment lifecycle', () => {
  test(...rule('SECURE-URL-FORM', 'every file of a secure upload gets a URL of the form /files/d/{slug}'), async ({ api }) => {
    const { urls } = await uploadAll(api, everyPosition('secure-form'), true);
    for (const url of urls) expect.soft(url).toBeSecureAttachmentUrl();
  });

  test(...rule('SECURE-PUBLIC-WINDOW', 'a secure URL serves anonymously from the upload to just before the hour ends'), async ({ api, travel }) => {
    await travel.afterUpload({
      upload: () => uploadAll(api, [testFile('secure-window.pdf')], true),
      instants: [0, ...(travel.farReachable ? [HOUR / 2] : []), HOUR - travel.margin],
      // From the half hour, as a test clock checks: a younger upload of an earlier run adds little to the check at once.
      aged: { from: HOUR / 2, to: HOUR - travel.margin },
      holds: { from: 0, to: HOUR },
      check: async ({ files: [file], urls: [url] }, when) => expect(await api.anonymous(`read ${when}`, url), `${file.name} read ${when}`).toServeBytesOf(file),
    });
  });

  test(...rule('SECURE-PRIVATE-AFTER', 'no anonymous route reaches a secure file just after the hour or long after'), async ({ api, travel }) => {
    let turn = 0;
    await travel.afterUpload({
      upload: () => uploadAll(api, [testFile('secure-after.pdf'), testFile('secure-after-2.png', 700)], true),
      instants: [HOUR + travel.margin, ...(travel.farReachable ? [DAY, MONTH] : [])],
      holds: { from: HOUR, to: Number.POSITIVE_INFINITY },
      check: (uploaded, when) => expectPrivate(api, uploaded, when, turn++),
    });
  });

  // A size no page of a server's own is likely to have, so that only the file's own length gives it away.
  test(...rule('SECURE-PRIVATE-HEAD', "an anonymous HEAD after the hour gets neither the file's type nor its size"), async ({ api, travel }) => {
    await travel.afterUpload({
      upload: () => uploadAll(api, [testFile('secure-head.pdf', 4321)], true),
      instants: [HOUR + travel.margin],
      holds: { from: HOUR, to: Number.POSITIVE_INFINITY },
      check: async ({ files: [file], urls: [url] }, when) => expect(await api.anonymous(`HEAD ${when}`, url, { method: 'HEAD' }), `HEAD of ${file.name}, ${when}`).toHideMetadataOf(file),
    });
  });

  // What read a file before must not open it: a route is tried at each age, after each kind of earlier read.
  test(...rule('SECURE-PRIVATE-AFTER', 'no route reaches a secure file at a later age whatever read it before'), async ({ api, clock, travel }) => {
    test.skip(!clock.movable, "needs the server years past an upload: only a target with a test clock (TEST_CLOCK_URL) can be moved there");
    const start = await clock.startOrNow();
    const space = spaceOf('SECURE-PRIVATE-AFTER');
    await forEvery(space, async (request) => {
      await clock.set(start);
      const label = describeCase(request, variedOf(space));
      const file = testFile('read-before.pdf');
      const reply = await api.upload(`upload, ${label}`, { fields: api.uploadFields({ isSecureAttachment: 'true' }), files: [file] });
      if (!accepted(reply)) return { refusedControl: reply, what: 'a secure upload to the email conversation', guaranteedBy: 'UPLOAD-ACCEPTED' as const };
      const secure = offeredUrls(reply).filter((url) => slugOf(url) !== undefined);
      if (secure.length !== 1) return { notApplicable: `the answer offered ${secure.length} URLs of the form /files/d/{slug} for one file` };
      const [url] = secure;
      const readSigned = async (when: string) => {
        const answer = await api.signedUrlFor(`ask for a signed URL ${when}, ${label}`, slugOf(url) as string, 'filesReadonly');
        for (const signed of offeredUrls(answer)) await api.anonymous(`read the signed URL ${when}`, signed);
      };
      if (request.earlierRead === 'anonymous within the hour') await api.anonymous(`read within the hour, ${label}`, url);
      if (request.earlierRead === 'signed within the hour') await readSigned('within the hour');
      await travel.pass(AFTERWARDS[request.age as keyof typeof AFTERWARDS]);
      if (request.earlierRead === 'signed after the hour') await readSigned('after the hour');
      const leaks = await anonymousLeaks(api, url, file, [String(request.route)]);
      expect(describeLeaks(leaks), `routes by which a caller without files.readonly got ${file.name} (${label})`).toEqual([]);
    });
  });

  // A slug names one file for good: a server that hands a private file's slug to a later upload signs the later file.
  test(...rule('SECURE-SIGNED-URL', 'a file past its hour is signed still after a later secure upload'), async ({ api, travel }) => {
    const file = testFile('signed-before-later.pdf', 370);
    const slug = requireSlug(await uploadOne(api, file, true));
    await travel.pass(HOUR + travel.margin);
    await uploadOne(api, testFile('later-secure.pdf', 371), true);
    expect(await signedAfterTheHour(api, slug, file)).toBeDefined();
  });

  test(...rule('SECURE-SIGNED-URL', 'a files.readonly token gets a signed URL serving the exact bytes'), async ({ api, travel }) => {
    await travel.afterUpload({
      upload: () => uploadAll(api, [testFile('secure-signed.docx')], true),
      instants: [HOUR + travel.margin, ...(travel.farReachable ? [MONTH] : [])],
      check: async ({ files: [file], urls: [url] }, when) => {
        const reply = await api.signedUrlFor(`ask for a signed URL with files.readonly, ${when}`, requireSlug(url), 'filesReadonly');
        expect.soft(reply.status, `GET /files/d/{slug} with files.readonly answered ${reply.status}, ${when}`).toBeLessThan(400);
        const signed = await servingUrl(api, offeredUrls(reply), file);
        expect.soft(signed, `none of the URLs offered (${offeredUrls(reply).length}) served the exact bytes of ${file.name}, ${when}`).toBeDefined();
      },
    });
  });

  test(...rule('SECURE-SCOPE-REQUIRED', 'a token lacking files.readonly gets no signed URL'), async ({ api, travel }) => {
    await travel.afterUpload({
      upload: () => uploadAll(api, [testFile('secure-scope.pdf')], true),
      instants: [HOUR + travel.margin],
      check: async ({ files: [file], urls: [url] }, when) => {
        const slug = requireSlug(url);
        const control = await api.signedUrlFor('ask for a signed URL with files.readonly (the control)', slug, 'filesReadonly');
        requireControl(control, 'GET /files/d/{slug} with files.readonly', 'SECURE-SIGNED-URL');
        const reply = await api.signedUrlFor('ask for a signed URL without files.readonly', slug, 'noFilesScope');
        expect.soft(reply, `GET /files/d/{slug} without files.readonly, ${when}`).toBeRefusal();
        // Redacted: a failure prints the URL it received, and a signed one carries its signature.
        const leaked = (await urlsByFile(api, offeredUrls(reply), [file])).get(file.name);
        expect.soft(leaked && api.evidence.redact(leaked), `a URL offered to the token without files.readonly that serves the file, ${when}`).toBeUndefined();
        // The scope is the resource's, whatever form of request HTTP lets a client write (a refusal of a form is no leak).
        expect.soft(describeLeaks(await anonymousLeaks(api, url, file, scopeFormRoutes())), `GET /files/d/{slug} without files.readonly in the other forms HTTP permits, ${when}`).toEqual([]);
      },
    });
  });

  test(...rule('SECURE-UNKNOWN-SLUG', 'an unknown slug is refused'), async ({ api }) => {
    const slug = requireSlug(await uploadOne(api, testFile('known-slug.pdf'), true));
    requireControl(await api.signedUrlFor('ask for the signed URL of a known slug (the control)', slug, 'filesReadonly'), 'GET /files/d/{slug} of a known slug', 'SECURE-SIGNED-URL');
    expect(await api.signedUrlFor('ask for the signed URL of an unknown slug', 'conformance-unknown-slug', 'filesReadonly')).toBeRefusal();
  });

  test(...rule('SECURE-SIGNED-EXPIRES', 'a signed URL stops serving within the hour'), async ({ api, travel }) => {
    const file = testFile('signed-expiry.pdf');
    const slug = requireSlug(await uploadOne(api, file, true));
    await travel.pass(HOUR + travel.margin);
    const signed = await signedAfterTheHour(api, slug, file);
    await travel.pass(HOUR);
    expect(await api.anonymous('read the signed URL an hour later', signed)).toWithholdBytesOf(file);
  });

  test(...rule('SECURE-SIGNED-BOUND', 'a signed URL does not serve another slug'), async ({ api, travel }) => {
    await travel.afterUpload({
      upload: async () => {
        const [mine, other] = [await uploadAll(api, [testFile('signed-mine.pdf')], true), await uploadAll(api, [testFile('signed-other.pdf')], true)];
        // Dated by the later upload: both must have passed the hour.
        return { files: [...mine.files, ...other.files], urls: [...mine.urls, ...other.urls], date: other.date };
      },
      instants: [HOUR + travel.margin],
      check: async ({ files: [mine, other], urls }, when) => {
        const [slug, otherSlug] = urls.map(requireSlug);
        const signed = await signedAfterTheHour(api, slug, mine);
        test.skip(!signed.includes(slug), 'the signed URL does not name its slug, so it cannot be pointed at another one');
        const swapped = signed.split(slug).join(otherSlug);
        expect(await api.anonymous('the signed URL with the other slug', swapped), `the signed URL of ${mine.name} pointed at ${other.name}, ${when}`).toWithholdBytesOf(other);
      },
    });
  });

  test(...rule('SECURE-SIGNED-TAMPER', 'a tampered signed URL is refused'), async ({ api, travel }) => {
    await travel.afterUpload({
      upload: () => uploadAll(api, [testFile('signed-tamper.pdf')], true),
      instants: [HOUR + travel.margin],
      check: async ({ files: [file], urls: [url] }, when) => {
        const tampered = tamper(await signedAfterTheHour(api, requireSlug(url), file));
        test.skip(tampered === undefined, 'the signed URL has no query parameter to alter');
        expect(await api.anonymous('the signed URL with its longest parameter altered', tampered as string), `the tampered signed URL of ${file.name}, ${when}`).toWithholdBytesOf(file);
      },
    });
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

  // "Permanently": just after the hour, then far after it, up to the first second a signed 32-bit time cannot hold.
  test(...rule('PERMANENT-URL-LASTS', 'a non-secure upload URL still serves from the hour to past 2038'), async ({ api, travel }) => {
    const past32Bit = (Date.parse(PAST_32_BIT_SECONDS) - Date.parse(BEFORE_CUTOVER)) / 1000;
    await travel.afterUpload({
      regime: { wanted: 'before', jumpTo: BEFORE_CUTOVER },
      upload: () => uploadAll(api, [testFile('permanent-lasts.txt')], false),
      instants: [HOUR + travel.margin, ...(travel.farReachable ? [DAY, MONTH, AFTERWARDS['a year'], AFTERWARDS['ten years'], past32Bit] : [])],
      check: async ({ files: [file], urls: [url] }, when) => expect.soft(await api.anonymous(`read ${when}`, url), `${file.name} read ${when}`).toServeBytesOf(file),
    });
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
      await travel.afterUpload({
        regime: { wanted: 'after', jumpTo: AFTER_CUTOVER },
        upload: async () => {
          const uploaded = await uploadAll(api, [testFile(`cutover-${String(flag)}.pdf`), testFile(`cutover-${String(flag)}-2.png`, 700)], flag);
          for (const url of uploaded.urls) expect.soft(url).toBeSecureAttachmentUrl();
          return uploaded;
        },
        instants: [HOUR + travel.margin],
        check: (uploaded, when) => expectPrivate(api, uploaded, when, 0),
      });
    });
  }

  // Ignored, the flag's value no longer matters: a value other than true or false is taken as any other upload is.
  test(...rule('CUTOVER-FLAG-ANY-VALUE', 'from 30 November 2026 isSecureAttachment yes, 1 or empty is accepted'), async ({ api, travel }) => {
    await travel.ensureRegime('after', AFTER_CUTOVER);
    const files = [testFile('flag-value.pdf')];
    const upload = (value: string, label: string) => api.upload(label, { fields: api.uploadFields({ isSecureAttachment: value }), files });
    requireControl(await upload('false', 'the same upload with isSecureAttachment=false (the control)'), 'the same upload with isSecureAttachment=false', 'UPLOAD-ACCEPTED');
    for (const value of ['yes', '1', '']) expect.soft(await upload(value, `an upload with isSecureAttachment=${JSON.stringify(value)}`), `isSecureAttachment=${JSON.stringify(value)} after the change`).toBeAcceptance();
  });

  // "From 30 November 2026" has no end: each upload of the domain, at instants near the change and far after it
  // (LATER_INSTANTS), is stored as secure. Without a test clock the instant is the server's now, so each run after the
  // date judges another one, and says which.
  const later = [
    { id: 'CUTOVER-ALL-SECURE', statement: 'every upload at every later instant is secure' },
    { id: 'CUTOVER-FLAG-IGNORED', statement: 'isSecureAttachment=false is ignored at every later instant' },
  ] as const;
  for (const { id, statement } of later) {
    test(...rule(id, statement), async ({ api, travel, clock }) => {
      await travel.ensureRegime('after', AFTER_CUTOVER);
      const space = uploadSpace(id, api.target, await reachOf(clock));
      const moveTo = instantKeeper(travel, clock.movable);
      await forEvery(space, async (request: Case) => {
        await moveTo(String(request.instant));
        const label = describeCase(request, variedOf(space));
        const files = uploadFilesOf(request, 'later', Number(request.count));
        const reply = await api.upload(`upload ${label}`, { fields: uploadFieldsOf(api, request), files });
        if (!accepted(reply)) return { refusedControl: reply, what: 'an upload after the change', guaranteedBy: 'UPLOAD-ACCEPTED' as const };
        // Not every URL an answer offers need be a file's; a file stored as non-secure leaves fewer secure URLs than files.
        const offered = offeredUrls(reply);
        const secure = new Set(offered.filter((url) => slugOf(url) !== undefined));
        expect(secure.size, `URLs of the form /files/d/{slug} for ${files.length} files (${label}), §4.1 rule 6: every file is stored as secure; offered: ${offered.join(', ')}`).toBeGreaterThanOrEqual(files.length);
      });
      if (!clock.movable) observe(`judged at the server's date ${new Date(await clock.now()).toISOString()}`);
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
