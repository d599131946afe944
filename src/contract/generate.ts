// The cases of a rule's domain: every pair of values of its dimensions (a greedy all-pairs cover, small enough to
// write here: covertable is not a dependency), and the arbitrary that fast-check samples from a seed and shrinks a
// failure with, towards each dimension's first, simplest value.
import fc from 'fast-check';
import { type Case, DOMAINS, type Dimension, type PropertyRule, RULE_DOMAINS, type Value, valuesFor } from './domains.ts';

/** The values each dimension takes in one run, and the requests among them the contract allows. */
export interface Space {
  readonly dimensions: Readonly<Record<string, readonly Value[]>>;
  readonly valid: (request: Case) => boolean;
  /** A dimension whose value costs a request to change (the server's instant): the cover runs grouped by it. */
  readonly groupBy?: string;
  /** Dimensions whose largest value holds the others (Dimension.cumulative): the cover takes only it, samples and shrinking all. */
  readonly cumulative?: readonly string[];
}

/**
 * The space of a rule: every dimension of its operation at the values the rule takes, each narrowed to those the
 * target can reach (`reachable`: a regime a server without a test clock is not in, a field it has no id for).
 */
export function spaceOf(rule: PropertyRule, reachable: Readonly<Record<string, readonly Value[]>> = {}, valid: Space['valid'] = () => true, groupBy?: string): Space {
  const dimensions = DOMAINS[RULE_DOMAINS[rule].operation] as Record<string, Dimension>;
  const names = Object.keys(dimensions);
  const cumulative = names.filter((name) => dimensions[name].cumulative);
  return { dimensions: Object.fromEntries(names.map((name) => [name, reachable[name] ?? valuesFor(rule, name)])), valid, groupBy, cumulative };
}

/** The dimensions of the space that take more than one value. */
export const variedOf = (space: Space) => Object.keys(space.dimensions).filter((name) => space.dimensions[name].length > 1);

/** Every valid request of the space, the first values first. */
export function product(space: Space): Case[] {
  let cases: Case[] = [{}];
  for (const [name, values] of Object.entries(space.dimensions)) cases = cases.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  return cases.filter(space.valid);
}

/**
 * The pairs of values of the varying dimensions each request covers, each pair as a number (a single varying
 * dimension's values alone): the pair of value i of dimension a and value j of dimension b (a before b) is
 * offset(a, b) + i × size(b) + j. Numbers, not strings: the greedy scan of coverOf is the hot loop of a run.
 */
function pairIdsOf(space: Space, names: readonly string[], requests: readonly Case[]): { ids: number[][]; count: number } {
  const sizes = names.map((name) => space.dimensions[name].length);
  const positions = names.map((name) => new Map(space.dimensions[name].map((value, i) => [value, i])));
  const offsets: number[][] = names.map(() => []);
  let count = names.length === 1 ? sizes[0] : 0;
  for (let a = 0; a < names.length; a++) {
    for (let b = a + 1; b < names.length; b++) {
      offsets[a][b] = count;
      count += sizes[a] * sizes[b];
    }
  }
  const ids = requests.map((request) => {
    const at = names.map((name, d) => positions[d].get(request[name]) as number);
    if (names.length === 1) return at;
    const pairs: number[] = [];
    for (let a = 0; a < names.length; a++) for (let b = a + 1; b < names.length; b++) pairs.push(offsets[a][b] + at[a] * sizes[b] + at[b]);
    return pairs;
  });
  return { ids, count };
}

/**
 * Valid requests that together hold every pair of values that some valid request holds: greedily, the request
 * covering most pairs not yet covered, the earliest on a tie, so the cover is the same in every run.
 */
export function pairwise(space: Space): Case[] {
  const largest = Object.fromEntries((space.cumulative ?? []).map((name) => [name, space.dimensions[name].slice(-1)]));
  const covered: Space = { ...space, dimensions: { ...space.dimensions, ...largest } };
  return coverOf(covered);
}

function coverOf(space: Space): Case[] {
  const names = variedOf(space);
  const requests = product(space);
  if (names.length === 0) return requests.slice(0, 1);
  const { ids: pairs, count } = pairIdsOf(space, names, requests);
  // Only the pairs some valid request holds are there to cover.
  const uncovered = new Uint8Array(count);
  let left = 0;
  for (const ids of pairs) {
    for (const pair of ids) {
      left += 1 - uncovered[pair];
      uncovered[pair] = 1;
    }
  }
  const chosen: Case[] = [];
  // The requests that still cover a pair not yet covered, in order: a request that covers none never will again.
  let live = requests.map((_, i) => i);
  while (left > 0) {
    let best = live[0];
    let gain = -1;
    const next: number[] = [];
    for (const i of live) {
      let covers = 0;
      for (const pair of pairs[i]) covers += uncovered[pair];
      if (covers > 0) next.push(i);
      if (covers > gain) [best, gain] = [i, covers];
    }
    chosen.push(requests[best]);
    for (const pair of pairs[best]) {
      left -= uncovered[pair];
      uncovered[pair] = 0;
    }
    live = next;
  }
  const { groupBy } = space;
  if (groupBy === undefined) return chosen;
  const rank = (request: Case) => space.dimensions[groupBy].indexOf(request[groupBy]);
  return chosen.sort((a, b) => rank(a) - rank(b));
}

/** fast-check's arbitrary of the space: a run of whole numbers as an integer (it shrinks step by step), any other list by its values. */
export function arbitraryOf(space: Space): fc.Arbitrary<Case> {
  const of = (values: readonly Value[]): fc.Arbitrary<Value> => {
    const numbers = values.every((value, i) => typeof value === 'number' && value === (values[0] as number) + i);
    return numbers ? fc.integer({ min: values[0] as number, max: values.at(-1) as number }) : fc.constantFrom(...values);
  };
  return fc.record(Object.fromEntries(Object.entries(space.dimensions).map(([name, values]) => [name, of(values)]))).filter(space.valid);
}
