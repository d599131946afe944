// The declared domains (src/contract/domains.ts) and their generation (src/contract/generate.ts): every dimension is
// used by a rule (or drawn by the model) and holds distinct values, a rule's own values are the operation's, the
// pairwise cover holds every pair some valid request holds, and the same seed draws the same requests; the wrong-type
// variants and the routes to a private upload are shared out so that every pair meets.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { anonymousRouteCases, routesShared } from '../checks/privacy.ts';
import { AFTERWARDS, type Case, DOMAINS, type Dimension, isValidUpload, LATER_INSTANTS, type PropertyRule, RULE_DOMAINS } from '../contract/domains.ts';
import { arbitraryOf, pairwise, product, type Space, spaceOf, variedOf } from '../contract/generate.ts';
import { RULES } from '../contract/rules.ts';
import { OPTIONAL } from '../model/sessions.ts';
import { variantPlaces, variantsOf } from '../contract/variants.ts';

const rules = Object.keys(RULE_DOMAINS) as PropertyRule[];
const dimensionsOf = (operation: keyof typeof DOMAINS) => DOMAINS[operation] as Record<string, Dimension>;

/** The pairs of values of the varied dimensions some valid request holds that no request of the cover holds. */
function pairsMissed(space: Space, cover: readonly Case[]): string[] {
  const names = variedOf(space);
  const pairs = (request: Case) => names.flatMap((a, i) => names.slice(i + 1).map((b) => `${a}=${request[a]} & ${b}=${request[b]}`));
  // A request at a cumulative dimension's value holds each smaller value too.
  const held = (request: Case): Case[] =>
    (space.cumulative ?? []).reduce<Case[]>((requests, name) => requests.flatMap((r) => space.dimensions[name].filter((v) => v <= r[name]).map((v) => ({ ...r, [name]: v }))), [request]);
  const covered = new Set(cover.flatMap(held).flatMap(pairs));
  return [...new Set(product(space).flatMap(pairs))].filter((pair) => !covered.has(pair));
}

describe('declared domains', () => {
  test('each rule with a domain is in the catalogue, and each dimension of each operation is one some rule quantifies over or the model draws', () => {
    const ids = new Set(RULES.map((r) => r.id));
    assert.deepEqual(rules.filter((id) => !ids.has(id)), []);
    // The optional parts of an execution are drawn by the model at every turn of its sessions, every value of them.
    assert.deepEqual(DOMAINS.execution.optionalFields.values.filter((value) => value !== 'none' && !(OPTIONAL as readonly string[]).includes(value)), []);
    const used = new Set(['execution.optionalFields', ...rules.flatMap((id) => RULE_DOMAINS[id].over.map((name) => `${RULE_DOMAINS[id].operation}.${name}`))]);
    const declared = Object.entries(DOMAINS).flatMap(([operation, dims]) => Object.keys(dims).map((name) => `${operation}.${name}`));
    assert.deepEqual(declared.filter((name) => !used.has(name)), []);
  });

  test('each dimension has a reason and distinct values; a rule holds a dimension to values of it', () => {
    for (const [operation, dims] of Object.entries(DOMAINS)) {
      for (const [name, { why, values }] of Object.entries(dims as Record<string, Dimension>)) {
        assert.ok(why.length > 10 && values.length > 0, `${operation}.${name}`);
        assert.equal(new Set(values).size, values.length, `${operation}.${name} repeats a value`);
      }
    }
    for (const id of rules) {
      const { operation, only = {} } = RULE_DOMAINS[id];
      for (const [name, values] of Object.entries(only)) {
        const all = dimensionsOf(operation)[name]?.values ?? [];
        assert.deepEqual(values?.filter((value) => !all.includes(value)), [], `${id} holds ${name} to values ${operation} does not declare`);
      }
    }
  });

  test('instants and ages are instants and ages: each later instant after the change, each age past the hour', () => {
    for (const instant of Object.keys(LATER_INSTANTS)) assert.ok(Date.parse(instant) >= Date.parse('2026-11-30T12:00:00Z'), instant);
    for (const [age, seconds] of Object.entries(AFTERWARDS)) assert.ok(seconds > 3600, age);
  });

  test('the routes of a file are rows of specs/cases/anonymous-routes.json', () => {
    const routes = new Set(anonymousRouteCases().map((row) => row.route));
    assert.deepEqual(DOMAINS.file.route.values.filter((route) => !routes.has(route)), []);
  });

  test('a secure upload naming only a contact is valid after the change only', () => {
    assert.equal(isValidUpload({ target: 'contact', secureFlag: 'true', regime: 'before' }), false);
    assert.equal(isValidUpload({ target: 'contact', secureFlag: 'true', regime: 'after' }), true);
  });
});

describe('generation', () => {
  for (const id of rules) {
    test(`${id}: the pairwise cover holds every pair of values, in valid requests only, the same each time`, () => {
      const space = spaceOf(id, {}, isValidUpload);
      const cover = pairwise(space);
      assert.deepEqual(pairsMissed(space, cover), []);
      assert.ok(cover.every(space.valid));
      assert.deepEqual(pairwise(space), cover);
      assert.ok(cover.length <= product(space).length);
      for (const name of space.cumulative ?? []) assert.ok(cover.every((request) => request[name] === space.dimensions[name].at(-1)), `${name}: the largest value only`);
    });
  }

  test('a single varied dimension is covered value by value; none varied, by its one request', () => {
    const one: Space = { dimensions: { a: ['x', 'y', 'z'], b: [1] }, valid: () => true };
    assert.deepEqual(pairwise(one), [{ a: 'x', b: 1 }, { a: 'y', b: 1 }, { a: 'z', b: 1 }]);
    assert.deepEqual(pairwise({ dimensions: { a: ['x'] }, valid: () => true }), [{ a: 'x' }]);
  });

  test('a cover grouped by a dimension runs its values in their declared order', () => {
    const space: Space = { dimensions: { at: ['t1', 't2', 't3'], b: [1, 2, 3] }, valid: () => true, groupBy: 'at' };
    const order = pairwise(space).map((request) => request.at);
    assert.deepEqual(order, [...order].sort());
  });

  test('the same seed draws the same valid requests; a run of whole numbers shrinks step by step', () => {
    const space = spaceOf('UPLOAD-SIZE-MAX', {}, isValidUpload);
    const draw = (seed: number) => fc.sample(arbitraryOf(space), { seed, numRuns: 20 });
    assert.deepEqual(draw(7), draw(7));
    assert.notDeepEqual(draw(7), draw(8));
    assert.ok(draw(7).every(isValidUpload));
    const shrunk = fc.check(fc.property(arbitraryOf(spaceOf('SESSION-INTERACTION-NEW')), (request) => Number(request.turns) < 4), { seed: 1 });
    assert.equal(shrunk.counterexample?.[0].turns, 4);
  });

  test('the wrong-type variants go to the places that cover every pair of field, type and place, each once; the others to every place', () => {
    const variants = variantsOf('execution-request', 'an execution');
    const placed = variantPlaces(variants, ['deprecated', 'replacement']);
    const wrong = placed.filter(({ variant }) => variant.wrong !== undefined);
    const pairs = (key: 'field' | 'type') => new Set(wrong.map(({ variant, place }) => `${variant.wrong?.[key]} ${place}`));
    const all = (key: 'field' | 'type') => new Set(variants.flatMap((variant) => (variant.wrong ? ['deprecated', 'replacement'].map((place) => `${variant.wrong?.[key]} ${place}`) : [])));
    assert.deepEqual(pairs('field'), all('field'));
    assert.deepEqual(pairs('type'), all('type'));
    assert.deepEqual(wrong.map(({ variant }) => variant.statement), variants.filter((variant) => variant.wrong).map((variant) => variant.statement));
    assert.equal(placed.length - wrong.length, 2 * variants.filter((variant) => !variant.wrong).length);
  });

  test('the routes to a private upload: its URL as given on every file at every check, each other route on one file a check, and on every file over as many checks', () => {
    const routes = anonymousRouteCases().map((row) => row.route);
    for (const count of [1, 2, 5]) {
      const met = new Set<string>();
      for (let turn = 0; turn < count; turn++) {
        const shares = Array.from({ length: count }, (_, i) => routesShared(i, count, turn));
        for (const share of shares) assert.equal(share[0], routes[0]);
        assert.deepEqual(shares.flatMap((share) => share.slice(1)).sort(), routes.slice(1).sort(), `check ${turn} of ${count} files`);
        shares.forEach((share, i) => share.forEach((route) => met.add(`${route} ${i}`)));
      }
      assert.equal(met.size, routes.length * count);
    }
  });
});
