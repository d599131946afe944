// The contract as a web page, for the reports' links to a rule's section: a browser shows a Markdown file as plain
// text, where no anchor leads anywhere, so the page gives every heading the anchor GitHub gives it (contractAnchor).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter } from '@playwright/test/reporter';
import { CONTRACT_FILE, CONTRACT_PAGE, contractAnchor, headingAnchor } from '../contract/contract.ts';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The contract's text as it is, each heading an anchor; room below the last line, so that every heading can come to the top. */
export function contractPage(): string {
  const lines = readFileSync(CONTRACT_FILE, 'utf8').split('\n').map((line) => {
    const heading = /^#+ (.*)$/.exec(line);
    return heading ? `<strong id="${headingAnchor(heading[1])}">${escapeHtml(line)}</strong>` : escapeHtml(line);
  });
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Platform API contract</title></head>',
    `<body style="padding-bottom: 100vh"><pre style="white-space: pre-wrap">${lines.join('\n')}</pre></body></html>`,
    '',
  ].join('\n');
}

/** Writes the page into a folder: the reports folder (a run), or the Allure report's (npm run report), so that wherever that report is published it serves the page CONTRACT_URL may name. */
export function writeContractPage(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, CONTRACT_PAGE), contractPage());
}

/**
 * The link of both reports to a cited section: CONTRACT_URL, by default this page in the reports folder as a file://
 * URL, since the Playwright HTML report makes links of absolute URLs only (and Allure of http(s) ones only).
 */
export const contractLink = (contractUrl: string, citation: string): string => `${contractUrl}#${contractAnchor(citation)}`;

/** Reporter (playwright.config.ts): writes the page into the reports folder as a run begins, where CONTRACT_URL leads by default. */
export default class ContractPageReporter implements Reporter {
  readonly #dir: string;

  constructor({ outputDir }: { outputDir: string }) {
    this.#dir = outputDir;
  }

  onBegin(): void {
    writeContractPage(this.#dir);
  }

  printsToStdio(): boolean {
    return false;
  }
}
