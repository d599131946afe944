// The Allure 3 report (`npm run report`): tests grouped by the contract (area, operation, rule: the labels rule()
// gives them, src/suite.ts), not by spec file; each rule's history kept beside the reports, so a rule's trend shows
// across runs (CI restores the file between runs); categories that keep apart what has no verdict, and the SHOULD
// warnings, whose tests pass. One file, index.html, that opens from the disk as well as over HTTP (the folder also
// holds contract.html, npm run report).
import { defineConfig } from 'allure';
import { readEnvironment, settingOf } from './src/config/config.ts';
import { REPLAY_OUT_OF_DATE } from './src/report/annotations.ts';

export default defineConfig({
  name: 'Platform API conformance',
  historyPath: `${settingOf(readEnvironment().values, 'reportsDir')}/allure-history.jsonl`,
  plugins: {
    awesome: { options: { reportName: 'Platform API conformance', singleFile: true, groupBy: ['epic', 'feature', 'story'] } },
  },
  categories: {
    rules: [
      {
        name: 'Infrastructure errors (no verdict)',
        matchers: { statuses: ['failed', 'broken'], message: 'Infrastructure error|ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up|Timeout \\d+ms exceeded' },
      },
      {
        name: 'Inconclusive checks (control refused or still rate limited: no verdict)',
        matchers: { statuses: ['failed', 'broken'], message: 'Inconclusive' },
      },
      {
        name: 'Recorded fixtures out of date',
        matchers: { statuses: ['failed', 'broken'], message: REPLAY_OUT_OF_DATE },
      },
      { name: 'MUST violations', matchers: { statuses: ['failed', 'broken'], labels: { tag: '^MUST$' } } },
      // A SHOULD rule found broken: its test passed with the tag `warning` (src/suite.ts), the finding attached.
      // Not grouped by message: a passed test has none (the finding is in its failed step and its attachment).
      { name: 'SHOULD warnings (passed, each with its finding)', matchers: { statuses: ['passed'], labels: { tag: '^warning$' } }, groupByMessage: false },
      // A skipped test judged nothing: its rule is unjudged unless another test judged it (the overview's `unjudged`).
      { name: 'Unjudged (skipped, each with its reason: no verdict)', matchers: { statuses: ['skipped'] } },
    ],
  },
});
