// Upload limits of §8: file counts, sizes and types at every position of an upload, and names built to slip past a
// careless extension check; one test per row of the case tables. A refusal is judged beside its control, the same
// upload without the property under test, which must be accepted.
import { allowedExtensionCases, uploadLimitCases } from '../src/contract/cases.ts';
import { expect, observe, requireControl, rule, test } from '../src/suite.ts';
import { filesOf, testFile } from '../src/files/test-file.ts';

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

  for (const row of allowedExtensionCases()) {
    test(...rule(row.rule, `a .${row.extension} file is accepted`), async ({ api }) => {
      const reply = await api.upload(`.${row.extension} (${row.category})`, { files: [testFile(`sample.${row.extension}`, 256)] });
      expect(reply).toBeAcceptance();
    });
  }
});
