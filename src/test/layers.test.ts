// The house's layers: src/ in folders whose imports run one way, the reference server on the suite's lowest layers
// only, and no circle anywhere. The table below is the layout table of docs/layout.md in code; a new folder gets a row in both.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Each layer, lowest first, and the layers it may import besides its own. */
const LAYERS: Record<string, readonly string[]> = {
  'src/contract': [],
  'src/config': ['src/contract'],
  'src/files': ['src/contract'],
  // The reference server shares the contract's constants and schemas, the settings and redaction: one statement of
  // each for the suite and the simulator it is proved against.
  reference: ['src/contract', 'src/config'],
  'src/report': ['src/contract', 'src/config'],
  'src/client': ['src/contract', 'src/config', 'src/files'],
  'src/checks': ['src/contract', 'src/config', 'src/files', 'src/client'],
  'src/time': ['src/contract', 'src/config', 'src/files', 'src/client', 'src/report'],
  'src/preflight': ['src/contract', 'src/config', 'src/files', 'src/client', 'src/checks', 'src/time'],
  'src/model': ['src/contract', 'src/config', 'src/files', 'src/client', 'src/checks', 'src/time'],
  // The entry points: suite.ts of the specs, global-setup.ts of the runner, and the door to the reference server.
  src: ['src/contract', 'src/config', 'src/files', 'src/report', 'src/client', 'src/checks', 'src/time', 'src/preflight', 'src/model', 'reference'],
};
/** At most this many files directly under src/: the entry points. */
const ENTRY_FILES = 4;

const sources = (dir: string) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));

/** A module's relative imports, static, re-exported and dynamic, type-only ones included, as paths from the root. */
export function importsOf(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const specifiers = [...text.matchAll(/(?:^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((match) => match[1]);
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)));
}

/** The layer of a file: its folder's row, the tests of src/ and reference/ apart. */
function layerOf(file: string): string | undefined {
  if (/^(src|reference)\/test\//.test(file)) return undefined;
  if (file.startsWith('reference/')) return 'reference';
  const folder = /^src\/([^/]+)\//.exec(file)?.[1];
  if (folder !== undefined) return `src/${folder}`;
  return file.startsWith('src/') ? 'src' : undefined;
}

/** Every circle of imports among these files, each once, as the files in order. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components: a component of more than one file, or a file importing itself, is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
    }
    if (low.get(file) === index.get(file)) {
      const component = stack.splice(stack.indexOf(file));
      if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component);
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const FILES = [...sources('src'), ...sources('reference'), ...sources('specs'), ...sources('scripts'), 'playwright.config.ts', 'allurerc.ts'];
const GRAPH = new Map(FILES.map((file) => [file, importsOf(file)]));

describe('the layers of src/', () => {
  test('every import of a layer goes to its own layer or one it may use', () => {
    const violations = FILES.flatMap((file) => {
      const layer = layerOf(file);
      if (layer === undefined) return [];
      const allowed = LAYERS[layer] ?? assert.fail(`${file} is in ${layer}/, which has no row in LAYERS`);
      return (GRAPH.get(file) ?? [])
        .filter((target) => {
          const to = layerOf(target);
          return to === undefined ? target.startsWith('specs/') || target.startsWith('scripts/') : to !== layer && !allowed.includes(to);
        })
        .map((target) => `${file} imports ${target} (${layerOf(target) ?? 'not a layer'}); ${layer} may use ${allowed.join(', ') || 'no other layer'}`);
    });
    assert.deepEqual(violations, []);
  });

  test('no circle of imports anywhere, type-only imports included', () => {
    assert.deepEqual(circles(GRAPH).map((circle) => circle.join(' → ')), []);
  });

  test(`at most ${ENTRY_FILES} files directly under src/, the entry points`, () => {
    const top = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
    assert.ok(top.length <= ENTRY_FILES, `src/ holds ${top.join(', ')}`);
  });

  test('every folder of src/ is a layer of the layout table (docs/layout.md)', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'test').map((entry) => `src/${entry.name}`);
    const layout = readFileSync(join(ROOT, 'docs', 'layout.md'), 'utf8');
    assert.deepEqual(folders.filter((folder) => !(folder in LAYERS) || !layout.includes(`| \`${folder}/\``)), []);
  });

  test('every relative import names a file that exists', () => {
    const missing = [...GRAPH].flatMap(([file, targets]) => targets.filter((target) => !existsSync(join(ROOT, target))).map((target) => `${file} → ${target}`));
    assert.deepEqual(missing, []);
  });
});

describe('the checks of this file', () => {
  test('a circle is found, and a chain is not one', () => {
    assert.deepEqual(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']]);
    assert.deepEqual(circles(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), []);
  });

  test('imports are read in every form: static, type-only, re-exported, dynamic', () => {
    // Written in two pieces, so that this file's own imports do not include the example's.
    const text = "import { a } from './a.ts';\nimport type { B } from '../b.ts';\nexport { c } from './c/c.ts';\nconst d = await im" + "port('./d.ts');\n// import { e } from './e.ts' in a comment is not read\n";
    assert.deepEqual(importsOf('src/x/file.ts', text), ['src/x/a.ts', 'src/b.ts', 'src/x/c/c.ts', 'src/x/d.ts']);
  });
});

