// npm run report: the annotated contract inside the Allure report, so that the report published over HTTP serves it
// (CONTRACT_URL may name it there: Allure links only http(s) addresses), with the verdicts of the run the report is
// of, as the conformance reporter wrote them (conformance.json under REPORTS_DIR); the report page without Allure's
// analytics, so that opening it asks nothing of any other host; then where each report of the run is.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { commandConfig } from '../src/config/config.ts';
import { withoutAnalytics } from '../src/report/allure-offline.ts';
import { writeContractPage } from '../src/report/contract-page.ts';
import type { ConformanceReport } from '../src/report/verdicts.ts';

const [dir] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: tsx scripts/contract-page.ts <report folder>');
const { reportsDir } = commandConfig();
const file = join(reportsDir, 'conformance.json');
const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport) : undefined;
writeContractPage(dir, report && { report, htmlReport: relative(dir, join(reportsDir, 'html', 'index.html')) });
withoutAnalytics(dir);

const REPORTS: [string, string][] = [
  [join(dir, 'index.html'), 'the Allure report, one file: open it in a browser, or serve its folder (npx allure open)'],
  [join(reportsDir, 'conformance.md'), 'the matrix for people: failures first, each whole'],
  [join(reportsDir, 'conformance.json'), 'the verdicts for tools'],
  [join(reportsDir, 'contract.html'), 'the contract, each rule beside its words with its verdict'],
  [join(reportsDir, 'html', 'index.html'), "Playwright's report (or npx playwright show-report)"],
  [join(reportsDir, 'junit.xml'), 'JUnit XML for CI'],
];
/** From here when under here, else in full. */
const shown = (path: string) => (relative('.', path).startsWith('..') ? resolve(path) : relative('.', path));
const found = REPORTS.filter(([path]) => existsSync(path));
const width = Math.max(...found.map(([path]) => shown(path).length));
process.stdout.write(`Reports:\n${found.map(([path, what]) => `  ${shown(path).padEnd(width)}  ${what}`).join('\n')}\n`);
