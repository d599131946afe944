// Upload limits of §8: file counts, sizes and types, one test per row of the case tables.
import { allowedExtensionCases, numberedName, uploadLimitCases } from '../src/cases.ts';
import { expect, observe, rule, test } from '../src/suite.ts';
import { testFile } from '../src/test-files.ts';

test.describe('upload limits', () => {
  for (const row of uploadLimitCases()) {
    test(...rule(row.rule, row.statement), async ({ api }) => {
      const files = Array.from({ length: row.files }, (_, i) => testFile(numberedName(row.name, i, row.files), row.bytes));
      const reply = await api.upload(row.statement, { files });
      if (row.expect === 'observed') {
        observe(`${row.files} × ${row.bytes} bytes: ${reply.status}`);
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
