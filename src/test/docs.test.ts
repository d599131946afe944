// The README and the pages of docs/ hold together: every link leads somewhere, the README stays a first day's read
// that reaches every page, and every command they show names a script or file that exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { headingAnchor } from '../contract/contract.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = join(ROOT, 'README.md');
const PAGES = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, 'docs', name));
/** Past this many lines the README is no first day's read any more; the brief aims at about 200. */
const README_MAX_LINES = 250;

const read = (file: string) => readFileSync(file, 'utf8');
const shown = (file: string) => relative(ROOT, file);

/** A Markdown text's prose and its fenced blocks, each with the language its fence names. */
function partsOf(markdown: string): { prose: string[]; blocks: { lang: string; lines: string[] }[] } {
  const prose: string[] = [];
  const blocks: { lang: string; lines: string[] }[] = [];
  let block: { lang: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    const fence = /^```(\S*)/.exec(line);
    if (fence && block === undefined) blocks.push((block = { lang: fence[1], lines: [] }));
    else if (fence) block = undefined;
    else if (block) block.lines.push(line);
    else prose.push(line);
  }
  return { prose, blocks };
}

/** The anchors GitHub gives the headings of a Markdown text: a repeated one gets -1, -2…, as GitHub numbers them. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of partsOf(markdown).prose) {
    const heading = /^#{1,6} (.*?)#*\s*$/.exec(line);
    if (!heading) continue;
    const anchor = headingAnchor(heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    let unique = anchor;
    for (let n = 1; anchors.has(unique); n++) unique = `${anchor}-${n}`;
    anchors.add(unique);
  }
  return anchors;
}

/** The targets of a Markdown text's links, outside code: code spans may hold brackets and parentheses that are no link. */
function linksOf(markdown: string): string[] {
  const prose = partsOf(markdown).prose.join('\n').replace(/`[^`\n]*`/g, 'code');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]);
}

/** What is wrong with each relative link of a file: a file that does not exist, or an anchor no heading of it has. */
function brokenLinks(file: string): string[] {
  return linksOf(read(file)).flatMap((link) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) return [];
    const [path, anchor] = link.split('#');
    const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    if (!existsSync(target)) return [`${shown(file)}: ${link} names no file`];
    if (anchor === undefined || !target.endsWith('.md')) return [];
    return anchorsOf(read(target)).has(anchor) ? [] : [`${shown(file)}: ${link} names no heading of ${shown(target)}`];
  });
}

/** The commands of a shell line: split at &&, ||, ; and |, each without its leading VAR=value assignments. */
function commandsOf(line: string): string[][] {
  return line
    .replace(/(^|\s)#.*$/, '')
    .split(/&&|\|\||;|\|/)
    .map((command) => command.trim().split(/\s+/).filter(Boolean))
    .map((words) => {
      const command = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
      return command < 0 ? [] : words.slice(command);
    })
    .filter((words) => words.length > 0);
}

/** What a shown command names that does not exist: an npm script not in package.json, a file for tsx or node. */
function missingOf(words: string[], scripts: Record<string, string>): string[] {
  const [tool, verb, name] = words;
  if (tool === 'npm' && verb === 'run') return name !== undefined && name in scripts ? [] : [`npm run ${name ?? ''}: no such script in package.json`];
  if (tool === 'npm' && verb === 'test') return 'test' in scripts ? [] : ['npm test: no test script in package.json'];
  const file = tool === 'npx' && verb === 'tsx' ? name : tool === 'node' ? verb : undefined;
  if (file === undefined || file.startsWith('-')) return [];
  return existsSync(join(ROOT, file)) ? [] : [`${words.join(' ')}: ${file} does not exist`];
}

describe('the README and docs/', () => {
  test('every relative link names a file that exists, and an anchor names a heading of it', () => {
    assert.deepEqual([README, ...PAGES].flatMap(brokenLinks), []);
  });

  test(`the README has at most ${README_MAX_LINES} lines`, () => {
    const lines = read(README).replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move what a newcomer does not need on the first day to docs/`);
  });

  test('every page of docs/ is linked from the README', () => {
    const linked = new Set(linksOf(read(README)).map((link) => join(ROOT, link.split('#')[0])));
    assert.deepEqual(PAGES.filter((page) => !linked.has(page)).map(shown), []);
  });

  test('the README shows the two commands as they are', () => {
    const blocks = partsOf(read(README)).blocks.filter((block) => block.lang === 'sh').map((block) => block.lines.join('\n'));
    assert.ok(blocks.includes('npm ci && npm run conformance'), 'the README has no sh block of npm ci && npm run conformance');
    assert.ok(blocks.includes('npm test'), 'the README has no sh block of npm test');
  });

  test('every command of an sh block names a script of package.json or a file that exists', () => {
    const scripts = (JSON.parse(read(join(ROOT, 'package.json'))) as { scripts: Record<string, string> }).scripts;
    const missing = [README, ...PAGES].flatMap((file) =>
      partsOf(read(file))
        .blocks.filter((block) => block.lang === 'sh')
        .flatMap((block) => block.lines.flatMap(commandsOf))
        .flatMap((words) => missingOf(words, scripts).map((problem) => `${shown(file)}: ${problem}`)),
    );
    assert.deepEqual(missing, []);
  });
});

describe('the checks of this file', () => {
  test("anchors are GitHub's, outside code blocks, a repeated heading numbered", () => {
    const text = "# Reading a run's last lines\n## Styles: the space of correct servers\n```sh\n# a comment\n```\n## The project's own CI: `.ci/run`\n## Faults\n## Faults\n";
    assert.deepEqual([...anchorsOf(text)], ['reading-a-runs-last-lines', 'styles-the-space-of-correct-servers', 'the-projects-own-ci-cirun', 'faults', 'faults-1']);
  });

  test('links are read outside code, with or without an anchor or a title', () => {
    const text = 'See [a](docs/a.md), [b](#b "title") and [`c`](c.md#c); `[x](not-a-link.md)` is code.\n```sh\n[y](nor-this.md)\n```\n';
    assert.deepEqual(linksOf(text), ['docs/a.md', '#b', 'c.md#c']);
  });

  test('commands are read past assignments, comments and chains', () => {
    assert.deepEqual(commandsOf('FAULT=x TEST_CLOCK=1 npm run serve   # a comment'), [['npm', 'run', 'serve']]);
    assert.deepEqual(commandsOf('npm ci && npm run conformance'), [['npm', 'ci'], ['npm', 'run', 'conformance']]);
    assert.deepEqual(commandsOf('# replay (the default): the recorded fixtures; no socket opens'), []);
    assert.deepEqual(commandsOf('STYLE=alt'), []);
    assert.deepEqual(missingOf(['npm', 'run', 'no-such-script'], { test: '' }), ['npm run no-such-script: no such script in package.json']);
    assert.deepEqual(missingOf(['npx', 'tsx', 'scripts/no-such-file.ts'], {}), ['npx tsx scripts/no-such-file.ts: scripts/no-such-file.ts does not exist']);
  });
});
