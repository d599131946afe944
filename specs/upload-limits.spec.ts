// Upload limits of §8: file counts, sizes and types at every position of an upload, and names built to slip past a
// careless extension check; one test per row of the case tables. A refusal is judged beside its control, the same
// upload without the property under test, which must be accepted. The count and size limits hold for every kind of
// upload (src/contract/domains.ts): each is also checked as a property over the upload's domain.
import { accepted, type Api } from '../src/client/api.ts';
import { indexOf, REGIME_INSTANTS, uploadFieldsOf, uploadFilesOf, uploadSpace } from '../src/checks/requests.ts';
import { describeCase } from '../src/checks/property.ts';
import { allowedExtensionCases, uploadLimitCases } from '../src/contract/cases.ts';
import { MAX_FILE_BYTES_BINARY, MAX_FILE_BYTES_DECIMAL, MAX_FILES_PER_UPLOAD } from '../src/contract/contract.ts';
import type { Case, PropertyRule } from '../src/contract/domains.ts';
import { variedOf } from '../src/contract/generate.ts';
import type { TestFile } from '../src/files/test-file.ts';
import { expect, forEvery, instantKeeper, observe, reachOf, requireControl, rule, test } from '../src/suite.ts';
import { filesOf, testFile } from '../src/files/test-file.ts';

/** A limit as a property: the upload of the request's kind with `over` is refused beside the same upload with `within`, accepted. */
interface LimitProperty {
  rule: PropertyRule;
  statement: string;
  within: (request: Case) => TestFile[];
  over: (request: Case) => TestFile[];
  /**
   * Where `within` is itself at an edge of the limit: what it is, and the same upload with small files, sent only
   * where `within` is refused. Small files accepted, the refusal of `within` breaks the rule; refused, it proves nothing.
   */
  edge?: { what: string; small: (request: Case) => TestFile[] };
}

/** The control of the size limit: the file in its place at 5,000,000 bytes, and beside it one that takes the upload past 5 MiB in all. */
function atSizeLimit(request: Case): TestFile[] {
  const count = Number(request.count);
  const at = indexOf(request, count);
  const files = uploadFilesOf(request, 'size', count, { index: at, bytes: MAX_FILE_BYTES_DECIMAL });
  const beside = (at + 1) % count;
  if (count > 1) files[beside] = testFile(files[beside].name, MAX_FILE_BYTES_BINARY - MAX_FILE_BYTES_DECIMAL + 1024);
  return files;
}

const LIMIT_PROPERTIES: LimitProperty[] = [
  {
    rule: 'UPLOAD-FILES-MAX',
    statement: 'a sixth file is refused in every kind of upload',
    within: (request) => uploadFilesOf(request, 'count', MAX_FILES_PER_UPLOAD),
    over: (request) => uploadFilesOf(request, 'count', MAX_FILES_PER_UPLOAD + 1),
  },
  {
    rule: 'UPLOAD-EXT-OTHER',
    statement: 'a .exe file is refused in every kind of upload and every place',
    within: (request) => uploadFilesOf(request, 'type', Number(request.count)),
    over: (request) => uploadFilesOf(request, 'type', Number(request.count), { index: indexOf(request, Number(request.count)), extension: 'exe' }),
  },
  {
    rule: 'UPLOAD-SIZE-MAX',
    statement: 'a file over 5 MiB is refused in every kind of upload and every place',
    // The control judges too: a 5 MB file is accepted in every kind and place, and the limit is each file's (§8), not
    // the request's (a proxy's body limit at that figure), at no request more.
    within: atSizeLimit,
    over: (request) => uploadFilesOf(request, 'size', Number(request.count), { index: indexOf(request, Number(request.count)), bytes: MAX_FILE_BYTES_BINARY + 1 }),
    edge: {
      what: 'each file within 5 MB, the one in its place of 5,000,000 bytes, and where there are two or more, together past 5 MiB',
      small: (request) => uploadFilesOf(request, 'size', Number(request.count), { index: indexOf(request, Number(request.count)), bytes: 1024 }),
    },
  },
];

/** Checks one request of a limit's domain: in its regime (a test clock moves there), the upload over the limit is refused. */
async function limitHolds(api: Api, moveTo: (iso: string) => Promise<void>, property: LimitProperty, request: Case, label: string) {
  await moveTo(REGIME_INSTANTS[request.regime as keyof typeof REGIME_INSTANTS]);
  const fields = uploadFieldsOf(api, request);
  const control = await api.upload(`${label}, within the limit (the control)`, { fields, files: property.within(request) });
  if (!accepted(control)) {
    if (property.edge && accepted(await api.upload(`${label}, with small files (the control of the control)`, { fields, files: property.edge.small(request) }))) {
      expect(control, `${property.statement}: ${label}: the upload with ${property.edge.what} was refused, and the same upload with small files accepted`).toBeAcceptance();
    }
    // The contract shows no rule on names beyond their extension: a refusal of another form of name proves nothing.
    if (request.nameForm !== 'plain') return { notApplicable: `the upload within the limit with names of the form "${request.nameForm}" answered ${control.status}` };
    return { refusedControl: control, what: 'the same upload within the limit', guaranteedBy: 'UPLOAD-ACCEPTED' as const };
  }
  expect(await api.upload(`${label}, over the limit`, { fields, files: property.over(request) }), `${property.statement}: ${label}`).toBeRefusal();
}

test.describe('upload limits', () => {
  for (const row of uploadLimitCases()) {
    test(...rule(row.rule, row.statement), async ({ api }) => {
      if (row.control) {
        requireControl(await api.upload(`${row.statement}: the control`, { files: filesOf(row.control) }), 'the same upload within the limits', 'UPLOAD-ACCEPTED');
      }
      const reply = await api.upload(row.statement, { files: filesOf(row.upload) });
      if (row.expect === 'observed') {
        observe(`${row.upload.map((g) => `${g.count ?? 1} × ${g.bytes} bytes`).join(' + ')}: ${reply.status}`);
      } else if (row.expect === 'accepted') {
        expect(reply).toBeAcceptance();
      } else {
        expect(reply).toBeRefusal();
      }
    });
  }

  // HTTP lets a server refuse a body without a Content-Length (RFC 9110 §15.5.12, 411): the limit is judged where it takes one.
  test(...rule('UPLOAD-SIZE-MAX', 'a file over 5 MiB sent in chunks, without a Content-Length, is refused'), async ({ api }) => {
    const control = await api.upload('the same upload in chunks with a file within the limit (the control)', { files: [testFile('chunked.pdf', 1024)], chunked: true });
    requireControl(control, 'an upload in chunks, without a Content-Length', 'not guaranteed');
    expect(await api.upload('a file of 5 MiB and one byte in chunks', { files: [testFile('chunked.pdf', MAX_FILE_BYTES_BINARY + 1)], chunked: true })).toBeRefusal();
  });

  for (const property of LIMIT_PROPERTIES) {
    test(...rule(property.rule, property.statement), async ({ api, clock, travel }) => {
      const space = uploadSpace(property.rule, api.target, await reachOf(clock));
      const moveTo = instantKeeper(travel, clock.movable);
      await forEvery(space, (request) => limitHolds(api, moveTo, property, request, describeCase(request, variedOf(space))));
    });
  }

  for (const row of allowedExtensionCases()) {
    test(...rule(row.rule, `a .${row.extension} file is accepted`), async ({ api }) => {
      const reply = await api.upload(`.${row.extension} (${row.category})`, { files: [testFile(`sample.${row.extension}`, 256)] });
      expect(reply).toBeAcceptance();
    });
  }
});
