// npm run report: the contract's page inside the Allure report, so that the report published over HTTP serves it
// (CONTRACT_URL may name it there: Allure links only http(s) addresses).
import { writeContractPage } from '../src/report/contract-page.ts';

const [dir] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: tsx scripts/contract-page.ts <report folder>');
writeContractPage(dir);
