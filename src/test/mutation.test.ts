// How the mutation run judges a fault: killed by its own rule, caught only by others, or survived;
// an INFO fault by a changed observation; and a sampled correct style, by the default's verdicts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judge, parseArguments, type Trial, trialProjects, verdictDifferences } from '../../scripts/mutation.ts';
import { faultCatalogue } from '../../reference/faults.ts';
import { parseStyle } from '../../reference/style.ts';
import type { Fault } from '../../reference/faults.ts';
import type { ConformanceReport, RuleResult } from '../report/conformance-reporter.ts';

const rule = (id: string, level: RuleResult['level'], verdict: RuleResult['verdict'], detail = ''): RuleResult => ({ id, level, verdict, tests: [], detail });
const run = (rules: RuleResult[]) => ({ name: 'x', seconds: 1, report: { mode: 'live', target: 't', apiVersion: 'v3', serverTime: null, rules } as ConformanceReport });
const fault = (rule: string, level: Fault['level']): Fault => ({ name: 'f', rule: rule as Fault['rule'], level, breaks: '' });

const baseline = run([rule('A', 'MUST', 'passed'), rule('B', 'MUST', 'passed'), rule('I', 'INFO', 'passed', '200'), rule('S', 'SHOULD', 'failed')]);

test('a fault whose own rule fails is killed; failures already in the baseline do not count', () => {
  const result = judge(fault('A', 'MUST'), run([rule('A', 'MUST', 'failed'), rule('B', 'MUST', 'passed'), rule('I', 'INFO', 'passed', '200'), rule('S', 'SHOULD', 'failed')]), baseline);
  assert.equal(result.outcome, 'killed');
  assert.deepEqual(result.failingRules, ['A']);
});

test('a fault that only other rules notice is caught by other rules only; one nothing notices survives', () => {
  assert.equal(judge(fault('A', 'MUST'), run([rule('A', 'MUST', 'passed'), rule('B', 'MUST', 'error')]), baseline).outcome, 'caught by other rules only');
  assert.equal(judge(fault('A', 'MUST'), baseline, baseline).outcome, 'survived');
});

test('an INFO fault is killed when its observation changes', () => {
  assert.equal(judge(fault('I', 'INFO'), run([rule('I', 'INFO', 'passed', '400')]), baseline).outcome, 'killed');
  assert.equal(judge(fault('I', 'INFO'), baseline, baseline).outcome, 'survived');
});

test('a sampled style differs where a MUST or SHOULD rule gets another verdict than in the default style; INFO and unrun rules aside', () => {
  const sampled = run([rule('A', 'MUST', 'failed'), rule('B', 'MUST', 'passed'), rule('I', 'INFO', 'passed', '400'), rule('S', 'SHOULD', 'passed')]);
  assert.deepEqual(verdictDifferences(sampled, baseline).rules, ['A', 'S']);
  assert.deepEqual(verdictDifferences(sampled, baseline, ['B', 'S']).words, ['S: failed in the default style, passed here']);
  assert.deepEqual(verdictDifferences(baseline, baseline).rules, []);
});

test('the sampled styles: K of them from the seed, each a valid point, the same for the same seed', () => {
  const { named, styles, seed } = parseArguments(['upload-six-files', '--styles=3', '--seed=abc']);
  assert.deepEqual(named, ['upload-six-files']);
  assert.equal(seed, 'abc');
  assert.equal(styles.length, 3);
  assert.deepEqual(parseArguments(['--seed=abc', '--styles=3']).styles, styles);
  for (const style of styles) assert.doesNotThrow(() => parseStyle(style));
  assert.equal(parseArguments([]).styles.length, 4);
  assert.throws(() => parseArguments(['--style=2']), /unknown options --style=2/);
});

test('the trials share projects: each trial in one project, no project with two faults of one rule, as many projects per style as a rule has faults', () => {
  const catalogue = faultCatalogue();
  const trials: Trial[] = [...catalogue.map((f) => ({ name: f.name, fault: f, style: 'default' as const })), { name: `${catalogue[0].name}@alt`, fault: catalogue[0], style: 'alt' }];
  const projects = trialProjects(trials);
  assert.deepEqual(projects.flatMap((p) => p.trials?.map((t) => t.name) ?? []).sort(), trials.map((t) => t.name).sort());
  for (const p of projects) {
    const rules = p.trials?.map((t) => t.rule) ?? [];
    assert.equal(new Set(rules).size, rules.length, `${p.name} holds two faults of one rule`);
    assert.deepEqual(p.rules, rules);
    for (const t of p.trials ?? []) assert.equal(trials.find((x) => x.name === t.name)?.style, p.style);
  }
  const most = Math.max(...catalogue.map((f) => catalogue.filter((g) => g.rule === f.rule).length));
  assert.equal(projects.filter((p) => p.style === 'default').length, most);
  assert.equal(projects.filter((p) => p.style === 'alt').length, 1);
});
