// npm run report: the annotated contract inside the Allure report, so that the report published over HTTP serves it
// (CONTRACT_URL may name it there: Allure links only http(s) addresses), with the verdicts of the run the report is
// of, as the conformance reporter wrote them (conformance.json under REPORTS_DIR).
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { commandConfig } from '../src/config/config.ts';
import { writeContractPage } from '../src/report/contract-page.ts';
import type { ConformanceReport } from '../src/report/verdicts.ts';

const [dir] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: tsx scripts/contract-page.ts <report folder>');
const { reportsDir } = commandConfig();
const file = join(reportsDir, 'conformance.json');
const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport) : undefined;
writeContractPage(dir, report && { report, htmlReport: relative(dir, join(reportsDir, 'html', 'index.html')) });
