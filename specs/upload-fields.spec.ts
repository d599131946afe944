// Upload fields of §2.1 and the upload response of §2.2 and §4.1: what a valid upload answers, and which
// omitted fields make it invalid.
import type { Fields } from '../src/api.ts';
import type { Target } from '../src/config.ts';
import { absoluteUrls, urlsByFile } from '../src/discover.ts';
import type { RuleId } from '../src/rules.ts';
import { expect, requireAccepted, requireControl, rule, test } from '../src/suite.ts';
import { testFile } from '../src/test-files.ts';

interface FieldCase {
  rule: RuleId;
  statement: string;
  /** The form fields of the upload, starting from a valid one. */
  fields: (valid: Fields, target: Target) => Fields;
  expect: 'accepted' | 'refused';
}

const without = (fields: Fields, ...names: string[]): Fields =>
  Object.fromEntries(Object.entries(fields).filter(([name]) => !names.includes(name)));

const FIELD_CASES: FieldCase[] = [
  {
    rule: 'UPLOAD-TARGET-REQUIRED',
    statement: 'an upload with neither conversationId nor contactId is refused',
    fields: (valid) => without(valid, 'conversationId', 'contactId'),
    expect: 'refused',
  },
  {
    rule: 'UPLOAD-CONTACT-ONLY',
    statement: 'an upload naming only a contactId is accepted',
    fields: (valid, target) => ({ ...without(valid, 'conversationId', 'contactId'), contactId: target.contactId }),
    expect: 'accepted',
  },
  {
    rule: 'UPLOAD-LOCATION-REQUIRED',
    statement: 'an upload without locationId is refused',
    fields: (valid) => without(valid, 'locationId'),
    expect: 'refused',
  },
  {
    rule: 'UPLOAD-ATTACHMENT-URLS',
    statement: 'an upload without attachmentUrls is refused',
    fields: (valid) => without(valid, 'attachmentUrls'),
    expect: 'refused',
  },
];

test.describe('upload fields', () => {
  test(...rule('UPLOAD-ACCEPTED', 'a valid upload is accepted with a JSON body'), async ({ api }) => {
    const reply = await api.upload('a valid upload of one file', { files: [testFile('accepted.txt', 300)] });
    expect.soft(reply).toBeAcceptance();
    expect.soft(reply).toHaveJsonContentType();
  });

  test(...rule('UPLOAD-RESPONSE-SCHEMA', 'the upload response holds an uploadedFiles object'), async ({ api }) => {
    const reply = await api.upload('a valid upload of one file', { files: [testFile('schema.txt', 300)] });
    requireAccepted(reply, 'a valid upload', 'UPLOAD-ACCEPTED');
    expect(reply.json()).toMatchSchema('upload-response');
  });

  test(...rule('UPLOAD-URL-PER-FILE', 'every file of an upload of five gets a URL serving its exact bytes'), async ({ api }) => {
    // Distinct names, types and sizes, so each file has its own digest and a URL can serve only one of them.
    const files = [testFile('first.txt', 200), testFile('second.pdf', 300), testFile('third.png', 400), testFile('fourth.csv', 500), testFile('fifth.docx', 600)];
    const reply = await api.upload('a valid upload of five files', { files });
    requireAccepted(reply, 'a valid upload of five files', 'UPLOAD-ACCEPTED');
    const matched = await urlsByFile(api, absoluteUrls(reply.json()), files);
    for (const file of files) {
      expect.soft(matched.get(file.name), `a URL in the response serving the bytes of ${file.name}`).toBeDefined();
    }
  });

  for (const row of FIELD_CASES) {
    test(...rule(row.rule, row.statement), async ({ api, target }) => {
      const files = [testFile('fields.txt', 300)];
      if (row.expect === 'refused') {
        requireControl(await api.upload('the same upload with every required field (the control)', { files }), 'a valid upload', 'UPLOAD-ACCEPTED');
      }
      const reply = await api.upload(row.statement, { fields: row.fields(api.uploadFields(), target), files });
      if (row.expect === 'accepted') {
        expect(reply).toBeAcceptance();
      } else {
        expect(reply).toBeRefusal();
      }
    });
  }
});
