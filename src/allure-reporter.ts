// allure-playwright with the rule's level and id in front of every failure message, so that Allure's
// categories keep MUST failures, SHOULD warnings and infrastructure errors apart.
import type { TestCase, TestError, TestResult } from '@playwright/test/reporter';
import AllureModule from 'allure-playwright';

// allure-playwright ships CommonJS: loaded as ESM its class may sit under `default`.
const AllureReporter = (AllureModule as unknown as { default?: typeof AllureModule }).default ?? AllureModule;

export default class ConformanceAllureReporter extends AllureReporter {
  override async onTestEnd(test: TestCase, result: TestResult): Promise<void> {
    const note = (type: string) => test.annotations.find((a) => a.type === type)?.description;
    const level = note('level');
    const infrastructure = (e: TestError) => /Infrastructure error|ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up/.test(e.message ?? '');
    const mark = (e: TestError): TestError =>
      level && !infrastructure(e) ? { ...e, message: `[${level} ${note('rule')}] ${e.message ?? ''}` } : e;
    await super.onTestEnd(test, { ...result, error: result.error && mark(result.error), errors: result.errors.map(mark) } as TestResult);
  }
}

/** Allure categories of this suite: the first that matches a failure names it. */
export const CATEGORIES = [
  { name: 'Infrastructure errors (no verdict)', messageRegex: '[\\s\\S]*(Infrastructure error|ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up|Timeout \\d+ms exceeded)[\\s\\S]*', matchedStatuses: ['failed', 'broken'] },
  { name: 'Recorded fixtures out of date', messageRegex: '[\\s\\S]*Replay (has no recorded answer|: \\d+ recorded interactions)[\\s\\S]*', matchedStatuses: ['failed', 'broken'] },
  { name: 'MUST violations', messageRegex: '\\[MUST [\\s\\S]*', matchedStatuses: ['failed', 'broken'] },
  { name: 'SHOULD warnings', messageRegex: '\\[SHOULD [\\s\\S]*', matchedStatuses: ['failed', 'broken'] },
];
