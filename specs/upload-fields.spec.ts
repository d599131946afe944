// Upload fields of §2.1 and the upload response of §2.2 and §4.1: what a valid upload answers, which optional fields it
// takes, and the variants generated from schemas/upload-request.schema.json (omitted fields, no field, an unknown one).
import { accepted, type Fields, type Reply } from '../src/client/api.ts';
import type { Target, TargetId } from '../src/config/config.ts';
import { offeredUrls, referenceForms, urlsServing } from '../src/checks/discover.ts';
import type { RuleId } from '../src/contract/rules.ts';
import { expect, observe, outcome, requireAccepted, requireControl, requireSettings, rule, test } from '../src/suite.ts';
import { testFile } from '../src/files/test-file.ts';
import { variantsOf } from '../src/contract/variants.ts';

/** Uploads the contract accepts, each beside the same upload with only the required fields. */
const ACCEPTED: { rule: RuleId; statement: string; fields: (valid: Fields, target: Target) => Fields; needs?: TargetId[] }[] = [
  {
    rule: 'UPLOAD-CONTACT-ONLY',
    statement: 'an upload naming only a contactId is accepted',
    fields: ({ conversationId: _conversationId, ...valid }, target) => ({ ...valid, contactId: target.contactId }),
  },
  {
    rule: 'UPLOAD-OPTIONAL-FIELDS',
    statement: 'an upload with workflowId and campaignId is accepted',
    // A server may check that the ids exist: the target's own, never made-up ones.
    needs: ['workflowId', 'campaignId'],
    fields: (valid, target) => ({ ...valid, workflowId: target.workflowId as string, campaignId: target.campaignId as string }),
  },
];

/** How a list travels in a form, which §2.1 does not show: a JSON text (the suite's own), the field repeated, `attachmentUrls[]` repeated. */
const LIST_ENCODINGS: { name: string; fields: (urls: string[]) => Fields }[] = [
  { name: 'as a JSON text', fields: (urls) => ({ attachmentUrls: JSON.stringify(urls) }) },
  { name: 'as the field repeated', fields: (urls) => ({ attachmentUrls: urls }) },
  { name: 'as attachmentUrls[] repeated', fields: (urls) => ({ 'attachmentUrls[]': urls }) },
];
const ATTACHMENT_URLS = ['https://example.com/conformance/first.pdf', 'https://example.com/conformance/second.pdf', 'https://example.com/conformance/third.pdf'];

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
    const matched = await urlsServing(api, offeredUrls(reply), files);
    for (const file of files) {
      expect.soft(matched.get(file.name), `a URL in the response serving the bytes of ${file.name}`).toBeDefined();
    }
  });

  test(...rule('UPLOAD-URL-PER-FILE', 'each of two uploads in flight together gets a URL serving its own file'), async ({ api }) => {
    const [first, second] = [testFile('together-first.pdf', 310), testFile('together-second.pdf', 320)];
    let other: Reply | undefined;
    // The first body waits for the second upload's answer: both are in flight together, and the first answers last.
    const reply = await api.upload('an upload whose body waits for another upload', {
      files: [first],
      meanwhile: async () => (other = await api.upload('an upload sent while the first is in flight', { files: [second] })),
    });
    test.skip(reply.meanwhileMissed === true, 'not applicable: the server redirected the first upload once its body had gone, so the two were in flight together only at the first URL');
    for (const [answer, file] of [[other as Reply, second], [reply, first]] as const) {
      requireAccepted(answer, `the upload of ${file.name}`, 'UPLOAD-ACCEPTED');
      const url = (await urlsServing(api, offeredUrls(answer), [file])).get(file.name);
      expect.soft(url, `a URL of the answer to the upload of ${file.name} serving its bytes`).toBeDefined();
    }
  });

  test(...rule('UPLOAD-FIELDS-AFTER-FILES', 'an upload whose fields follow its file is accepted'), async ({ api }) => {
    const files = [testFile('fields-after.txt', 300)];
    requireControl(await api.upload('the same upload with its fields first (the control)', { files }), 'the same upload with its fields first', 'UPLOAD-ACCEPTED');
    expect(await api.upload('an upload whose fields follow its file', { files, order: 'files-first' })).toBeAcceptance();
  });

  // The list's encoding is not shown, so a server may refuse some: one that takes a URL in an encoding takes three there.
  test(...rule('UPLOAD-ATTACHMENT-URLS-LIST', 'an upload whose attachmentUrls lists three URLs is accepted'), async ({ api }) => {
    const files = [testFile('attachment-urls.txt', 300)];
    const oneRefused: string[] = [];
    const threeRefused: string[] = [];
    for (const encoding of LIST_ENCODINGS) {
      const one = await api.upload(`attachmentUrls with one URL ${encoding.name}`, { fields: api.uploadFields(encoding.fields(ATTACHMENT_URLS.slice(0, 1))), files });
      if (!accepted(one)) {
        oneRefused.push(`${encoding.name}: ${outcome(one)}`);
        continue;
      }
      const three = await api.upload(`attachmentUrls with three URLs ${encoding.name}`, { fields: api.uploadFields(encoding.fields(ATTACHMENT_URLS)), files });
      if (accepted(three)) return;
      threeRefused.push(`${encoding.name}: one URL ${outcome(one)}, three ${outcome(three)} ${three.shown().slice(0, 200)}`);
    }
    test.skip(threeRefused.length === 0, `not applicable: no encoding of the list took one URL (${oneRefused.join('; ')}); the contract does not show the encoding`);
    expect(threeRefused, 'the encodings that took one URL and refused three: §2.1 types attachmentUrls as an array of string, so a list of several is valid').toEqual([]);
  });

  test(...rule('UPLOAD-URL-FORM', "the form in which the upload's URLs are written is observed"), async ({ api }) => {
    const reply = await api.upload('a valid upload of one file', { files: [testFile('form.txt', 300)] });
    requireAccepted(reply, 'a valid upload', 'UPLOAD-ACCEPTED');
    // Any form of RFC 3986 §4.1 is correct: the suite resolves each against the answer's URL.
    observe(`URLs written ${referenceForms(reply).join('; ') || 'nowhere in the JSON body'}`);
  });

  for (const row of ACCEPTED) {
    test(...rule(row.rule, row.statement), async ({ api, target }) => {
      requireSettings(target, row.needs ?? []);
      const files = [testFile('fields.txt', 300)];
      requireAccepted(await api.upload('the same upload with only the required fields', { files }), 'a valid upload', 'UPLOAD-ACCEPTED');
      expect(await api.upload(row.statement, { fields: row.fields(api.uploadFields(), target), files })).toBeAcceptance();
    });
  }

  // Multipart fields are all text: the schema's types say how the text is read, so there is no wrong type to send.
  for (const variant of variantsOf('upload-request', 'an upload', { wrongTypes: false })) {
    test(...rule(variant.rule, variant.statement), async ({ api }) => {
      const files = [testFile('fields.txt', 300)];
      requireControl(await api.upload('the same upload with every required field (the control)', { files }), 'a valid upload', 'UPLOAD-ACCEPTED');
      const reply = await api.upload(variant.statement, { fields: variant.apply(api.uploadFields()) as Fields, files });
      if (variant.expect === 'observed') observe(`${variant.statement.replace(/ is observed$/, '')}: ${outcome(reply)}`);
      else expect(reply).toBeRefusal();
    });
  }
});
