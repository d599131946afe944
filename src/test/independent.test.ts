// How npm run independent judges a fault of the independent server by its level, and which faults it draws.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { draw, type Fault, knownMisses, outcomeOf, parseArguments } from '../../scripts/independent.ts';
import type { ConformanceReport, RuleResult } from '../report/conformance-reporter.ts';

const rule = (id: string, level: RuleResult['level'], verdict: RuleResult['verdict'], detail = ''): RuleResult => ({ id, level, verdict, tests: [], detail });
const report = (rules: RuleResult[]) => ({ mode: 'live', target: 't', apiVersion: 'v3', serverTime: null, rules }) as ConformanceReport;
const fault = (level: Fault['level'], id = 'F01'): Fault => ({ id, name: 'x', level, deviation: '' });

/** The baseline: every MUST rule passes, one SHOULD rule already warns, an INFO rule observes 200. */
const baseline = report([rule('M', 'MUST', 'passed'), rule('S', 'SHOULD', 'passed'), rule('W', 'SHOULD', 'failed'), rule('I', 'INFO', 'passed', '200')]);
const with_ = (...changed: RuleResult[]) => report(baseline.rules.map((r) => changed.find((c) => c.id === r.id) ?? r));

test('a MUST fault is caught by a MUST rule failing; a warning alone or nothing is a problem', () => {
  assert.deepEqual(outcomeOf(fault('must'), with_(rule('M', 'MUST', 'failed')), baseline), { outcome: 'caught', failing: ['MUST M'], problem: false });
  assert.equal(outcomeOf(fault('must'), with_(rule('S', 'SHOULD', 'failed')), baseline).outcome, 'warned only');
  assert.equal(outcomeOf(fault('must'), baseline, baseline).problem, true);
});

test('a SHOULD fault must warn without failing a MUST rule; a warning the baseline already gives does not count', () => {
  assert.deepEqual(outcomeOf(fault('should'), with_(rule('S', 'SHOULD', 'failed')), baseline), { outcome: 'warned', failing: ['SHOULD S'], problem: false });
  assert.equal(outcomeOf(fault('should'), baseline, baseline).outcome, 'missed');
  assert.equal(outcomeOf(fault('should'), with_(rule('M', 'MUST', 'failed')), baseline).outcome, 'failed a MUST rule');
  assert.equal(outcomeOf(fault('should'), with_(rule('M', 'MUST', 'failed'), rule('S', 'SHOULD', 'failed')), baseline).problem, true);
});

test('an INFO fault may be observed, never failed or warned about', () => {
  assert.deepEqual(outcomeOf(fault('info'), with_(rule('I', 'INFO', 'passed', '400')), baseline), { outcome: 'observed', failing: [], problem: false });
  assert.deepEqual(outcomeOf(fault('info'), baseline, baseline), { outcome: 'not observed', failing: [], problem: false });
  assert.equal(outcomeOf(fault('info'), with_(rule('S', 'SHOULD', 'failed')), baseline).problem, true);
});

test('a run that left no report has no verdict, a problem at any level', () => {
  for (const level of ['must', 'should', 'info'] as const) assert.equal(outcomeOf(fault(level), undefined, baseline).problem, true);
});

test('the draw: K faults from the seed, the same for the same seed; named ones with --only; never a style the fault cannot show in', () => {
  const all = Array.from({ length: 90 }, (_, i) => fault('must', `F${String(i + 1).padStart(2, '0')}`));
  const styles = ['a', 'c', 'd', 'e', 'f'];
  const once = draw(all, '6', 'abc', styles);
  assert.equal(once.length, 6);
  assert.deepEqual(draw(all, '6', 'abc', styles), once);
  assert.notDeepEqual(draw(all, '6', 'abd', styles).map((job) => job.name), once.map((job) => job.name));
  assert.deepEqual(draw(all, 'all', 'x', styles, ['F70', 'F83']).map((job) => job.fault?.id), ['F70', 'F83']);
  for (let seed = 0; seed < 50; seed++) assert.notEqual(draw(all, 'all', String(seed), styles, ['F70'])[0].style, 'f');
  assert.deepEqual(draw(all, 'all', 'x', ['f'], ['F70']), []);
  assert.throws(() => draw(all, 'all', 'x', styles, ['F99']), /F99 not among/);
});

test('a drawn sample puts at most one fault on a slow style (g), whatever the seed; --faults=all leaves the draw alone', () => {
  const all = Array.from({ length: 90 }, (_, i) => fault('must', `F${String(i + 1).padStart(2, '0')}`));
  const styles = ['a', 'c', 'd', 'e', 'f', 'g', 'h'];
  const slow = (jobs: ReturnType<typeof draw>) => jobs.filter((job) => job.style === 'g').length;
  for (let seed = 0; seed < 50; seed++) assert.ok(slow(draw(all, '12', String(seed), styles)) <= 1, `seed ${seed}`);
  assert.ok(slow(draw(all, 'all', 'x', styles)) > 1);
  assert.deepEqual(draw(all, '3', 'x', ['g']).map((job) => job.style), ['g', 'g', 'g']);
});

test('the options: seven styles by default, --throttled, --only, --reference; an unknown option or style is refused', () => {
  const parsed = parseArguments(['--only=F70,F83', '--throttled', '--reference=r.json', '--seed=s']);
  assert.deepEqual([parsed.styles, parsed.only, parsed.throttled, parsed.reference], [['a', 'c', 'd', 'e', 'f', 'g', 'h'], ['F70', 'F83'], true, 'r.json']);
  assert.equal(parseArguments([]).throttled, false);
  assert.throws(() => parseArguments(['--fast']), /unknown arguments --fast/);
  assert.throws(() => parseArguments(['--styles=b']), /b is not a style/);
});

test("the draw takes each level in its share of the catalogue, whatever the seed: 73 MUST, 15 SHOULD and 2 INFO faults give 5 and 1 of 6", () => {
  const levels = [...Array(73).fill('must'), ...Array(15).fill('should'), ...Array(2).fill('info')] as Fault['level'][];
  const all = levels.map((level, i) => fault(level, `F${String(i + 1).padStart(2, '0')}`));
  for (let seed = 0; seed < 20; seed++) {
    const drawn = draw(all, '6', String(seed), ['a']).map((job) => job.fault?.level);
    assert.deepEqual([drawn.filter((l) => l === 'must').length, drawn.filter((l) => l === 'should').length, drawn.filter((l) => l === 'info').length], [5, 1, 0], `seed ${seed}`);
  }
  assert.equal(draw(all, '45', 'x', ['a']).filter((job) => job.fault?.level === 'info').length, 1);
});

test('the known misses: each line a fault of the server and why; a drawn sample leaves them out, --only and all keep them', () => {
  const misses = knownMisses();
  for (const [id, why] of misses) assert.ok(/^F\d+$/.test(id) && why.length >= 10, `${id}: ${why}`);
  const all = Array.from({ length: 40 }, (_, i) => fault('must', `F${String(i + 1).padStart(2, '0')}`));
  const skipped = new Set(['F01', 'F02', 'F03']);
  for (let seed = 0; seed < 20; seed++) assert.ok(!draw(all, '10', String(seed), ['a'], undefined, skipped).some((job) => skipped.has(job.fault?.id ?? '')), `seed ${seed}`);
  assert.equal(draw(all, 'all', 'x', ['a'], undefined, skipped).length, 40);
  assert.deepEqual(draw(all, 'all', 'x', ['a'], ['F01'], skipped).map((job) => job.fault?.id), ['F01']);
});
