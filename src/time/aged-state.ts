// Uploads that wait for a later run. Against a live target whose clock the suite can neither move nor wait out, a
// check that needs the hour to pass cannot finish in one run: the test leaves its upload in STATE_DIR, and the same
// test of a later run judges it once it has aged by the server's clock, and judges it again each time it has crossed a
// boundary since (boundariesCrossed), until it is a month old. One file per upload, written whole and then
// renamed, so concurrent workers never read half of one; each test reads only its own, so no two workers judge one
// upload, and a CI shard (which runs the same tests every time) carries all the state its tests need. A file holds
// a file's name, size and digest (the name and size rebuild its bytes) and its URL, never its bytes or a token.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Target } from '../config/config.ts';
import type { RuleId } from '../contract/rules.ts';
import { describeErrors, validatorFor } from '../contract/schemas.ts';
import { type Regime, regimeAt } from './server-clock.ts';
import { knownTestFile, testFile, type TestFile } from '../files/test-file.ts';

export const STATE_FORMAT = 'conformance-aged-upload/1';
/** An upload older than this is dropped unjudged: the farthest a check looks is a month after the upload. */
export const KEEP_SECONDS = 30 * 24 * 3600;

/** The files of an upload and the URL of each, in one order. */
export interface Uploaded {
  files: TestFile[];
  urls: string[];
}

/** One file of STATE_DIR (schemas/aged-upload.schema.json). */
export interface StoredUpload {
  format: typeof STATE_FORMAT;
  rule: RuleId;
  test: string;
  target: { origin: string; locationId: string };
  uploadedAt: string;
  regime: Regime;
  /** When a later run last judged it, by the server's clock. */
  judgedAt?: string;
  files: { name: string; size: number; sha256: string; url: string }[];
}

/** An upload an earlier run left, its files rebuilt. */
export interface Waiting extends Uploaded {
  path: string;
  regime: Regime;
  /** Seconds from the upload to the server's now. */
  age: number;
  /** Epoch ms (server) of its last judgment, if a run judged it already. */
  judgedAt?: number;
}

/**
 * The boundaries an upload crossed between `since` and `now` (server epoch ms), across which a rule on it may be
 * broken where it held before: the change of 30 November 2026 (a server may re-store or hide older files there), the
 * turn of a year (a date compared by its year), a day of age (a day-granular expiry or cache).
 */
export function boundariesCrossed(uploadedAt: number, since: number, now: number): string[] {
  const DAY_MS = 86_400_000;
  return [
    ...(regimeAt(since) !== regimeAt(now) ? ['the change of 30 November 2026'] : []),
    ...(new Date(since).getUTCFullYear() !== new Date(now).getUTCFullYear() ? [`the turn of the year ${new Date(now).getUTCFullYear()}`] : []),
    ...(since - uploadedAt < DAY_MS && now - uploadedAt >= DAY_MS ? ['a day of age'] : []),
  ];
}

/** The uploads one test leaves for later runs against one target. */
export class UploadState {
  readonly #prefix: string;
  readonly #target: StoredUpload['target'];

  /** `redact`: the suite's redaction, so that a URL carrying a signature or a token is never stored. */
  constructor(
    readonly dir: string,
    target: Target,
    private readonly rule: RuleId,
    private readonly test: string,
    private readonly redact: (text: string) => string,
  ) {
    this.#target = keptTarget(target);
    this.#prefix = `${rule}.${createHash('sha256').update(test).digest('hex').slice(0, 8)}.`;
  }

  /**
   * The uploads earlier runs left for this test, oldest first, with their ages at the server's `now`. Those older
   * than KEEP_SECONDS are dropped, and those whose files this suite no longer makes alike (with a warning); a file
   * that is broken, of another format, test or target is left alone and named in a warning. Nothing here throws:
   * state is a help, never a reason for a run to fail.
   */
  waiting(now: number): { uploads: Waiting[]; warnings: string[] } {
    const uploads: Waiting[] = [];
    const warnings: string[] = [];
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((name) => name.startsWith(this.#prefix) && name.endsWith('.json')).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`${this.dir} could not be read, so no upload of an earlier run is judged: ${(error as Error).message}`);
      return { uploads, warnings };
    }
    for (const name of names) {
      const path = join(this.dir, name);
      try {
        const read = this.#read(path, now);
        if ('upload' in read) uploads.push(read.upload);
        else {
          this.drop(path);
          if (read.because) warnings.push(`${path} is dropped: ${read.because}`);
        }
      } catch (error) {
        warnings.push(`${path} is ignored: ${(error as Error).message}`);
      }
    }
    return { uploads: uploads.sort((a, b) => b.age - a.age), warnings };
  }

  /** Leaves an upload for a later run; throws, saying why, when it cannot. */
  keep(uploaded: Uploaded, uploadedAt: number, regime: Regime): void {
    // The size testFile() was asked for: a file smaller than its type's minimum is made larger, and rebuilt from the asked size.
    const files = uploaded.files.map((file, i) => ({ name: file.name, size: knownTestFile(file.bytes)?.size ?? file.bytes.length, sha256: file.sha256, url: uploaded.urls[i] }));
    const credential = files.find((file) => this.redact(file.url) !== file.url);
    if (credential) throw new Error(`the URL of ${credential.name} carries a signature or a token, which is never stored`);
    const stored: StoredUpload = { format: STATE_FORMAT, rule: this.rule, test: this.test, target: this.#target, uploadedAt: new Date(uploadedAt).toISOString(), regime, files };
    const name = `${this.#prefix}${uploadedAt}.${randomBytes(4).toString('hex')}.json`;
    mkdirSync(this.dir, { recursive: true });
    const partial = join(this.dir, `.${name}.partial`);
    writeFileSync(partial, `${JSON.stringify(stored, null, 2)}\n`);
    renameSync(partial, join(this.dir, name));
  }

  /** Keeps a judged upload for a later run to judge again once it has crossed a boundary (boundariesCrossed). */
  judged(path: string, at: number): void {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as StoredUpload;
    const partial = join(this.dir, `.${basename(path)}.partial`);
    writeFileSync(partial, `${JSON.stringify({ ...stored, judgedAt: new Date(at).toISOString() }, null, 2)}\n`);
    renameSync(partial, path);
  }

  /** Forgets an upload: too old to be judged, or past what its check holds for. */
  drop(path: string): void {
    rmSync(path, { force: true });
  }

  /** The upload a file holds, or why it is of no use (none: too old); throws saying why a file is not ours to judge. */
  #read(path: string, now: number): { upload: Waiting } | { because?: string } {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as StoredUpload;
    const validate = validatorFor('aged-upload');
    if (!validate(stored)) throw new Error(`not an upload of this suite (schemas/aged-upload.schema.json: ${describeErrors(validate.errors)})`);
    if (stored.rule !== this.rule || stored.test !== this.test) throw new Error(`it was left for another test (${stored.test})`);
    if (stored.target.origin !== this.#target.origin || stored.target.locationId !== this.#target.locationId) {
      throw new Error(`it belongs to another target (${stored.target.origin}, location ${stored.target.locationId})`);
    }
    const files = stored.files.map((file) => testFile(file.name, file.size));
    const changed = stored.files.find((file, i) => file.sha256 !== files[i].sha256);
    // This suite's test files changed since: the upload can no longer be told from another file.
    if (changed) return { because: `this suite no longer makes ${changed.name} of ${changed.size} bytes as it was uploaded` };
    const age = Math.round((now - Date.parse(stored.uploadedAt)) / 1000);
    if (age > KEEP_SECONDS) return {};
    const judgedAt = stored.judgedAt === undefined ? undefined : Date.parse(stored.judgedAt);
    return { upload: { path, files, urls: stored.files.map((file) => file.url), regime: stored.regime, age, judgedAt } };
  }
}

/** Whose an upload is: the target's origin and location. */
const keptTarget = (target: Target): StoredUpload['target'] => ({ origin: new URL(target.baseUrl).origin, locationId: target.locationId });

/**
 * Every upload kept in `dir` for `target`, whichever test left it, newest first: what a server that holds it shows
 * it still holds (src/preflight/kept-state.ts). A file that is not one of them is passed over.
 */
export function keptFor(dir: string, target: Target): { path: string; uploadedAt: number; urls: string[] }[] {
  const { origin, locationId } = keptTarget(target);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json') && !name.startsWith('.'));
  } catch {
    return [];
  }
  return names
    .flatMap((name) => {
      try {
        const stored = JSON.parse(readFileSync(join(dir, name), 'utf8')) as StoredUpload;
        const ours = stored.format === STATE_FORMAT && stored.target?.origin === origin && stored.target.locationId === locationId;
        return ours ? [{ path: join(dir, name), uploadedAt: Date.parse(stored.uploadedAt), urls: stored.files.map((file) => file.url) }] : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => b.uploadedAt - a.uploadedAt);
}

/** A duration as a person reads it: `47 s`, `33 min`, `2 h 14 min`, `3 d 5 h`. */
export function describeAge(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes === 0) return `${seconds} s`;
  const [days, hours] = [Math.floor(minutes / 1440), Math.floor(minutes / 60) % 24];
  if (days > 0) return `${days} d ${hours} h`;
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
