// The uploads of a sequence: every wire form, target and flag, and the closing steps made of uploads.
import fc from 'fast-check';
import { accepted, type Fields, type PartOrder, type Reply } from '../client/api.ts';
import { offeredUrls, slugOf, urlsServing } from '../checks/discover.ts';
import type { Target } from '../config/config.ts';
import { testFile, type TestFile } from '../files/test-file.ts';
import { Disagreement, type Model, mustAccept, NotApplicable, type SecureFlag, shown, type UploadTarget } from './model.ts';
import { ClockStep } from './clock.ts';
import { readSweep } from './files.ts';
import { type Real, Step, tokenOf, StepsInTurn } from './step.ts';


const EXTENSIONS = ['pdf', 'png', 'txt', 'mp3', 'zip', 'csv'] as const;
/** A part's declared Content-Type: none (the client's guess from the name), a generic one, or another allowed type's. */
export type PartType = 'own' | 'generic' | 'other';
/** How the list attachmentUrls travels in a form (§2.1 does not say): a JSON text, the field repeated, `attachmentUrls[]` repeated. */
export type ListEncoding = 'json' | 'repeated' | 'brackets';

export interface UploadSpec {
  /** Each file's extension, a size step (two files of one name differ in size, so in bytes), and a name beyond ASCII. */
  files: { extension: (typeof EXTENSIONS)[number]; size: number; unicode: boolean }[];
  /** The first file takes the name of an earlier file of the run (by index), when there is one. */
  reuse: number | undefined;
  target: UploadTarget;
  flag: SecureFlag;
  order: PartOrder;
  partType: PartType;
  /** How many entries attachmentUrls holds, and how it is encoded. */
  entries: 0 | 1 | 3;
  encoding: ListEncoding;
  /** The body with its Content-Length, or in chunks without one. */
  length: 'declared' | 'chunked';
  /** Which token of the model uploads. */
  caller: number;
}

const PART_TYPES: Record<PartType, (file: TestFile) => string> = {
  own: () => '',
  generic: () => 'application/octet-stream',
  other: (file) => (file.name.endsWith('.png') ? 'application/pdf' : 'image/png'),
};

type WireDimension = 'order' | 'partType' | 'entries' | 'encoding' | 'length';
/** The form of the suite's other checks (src/client/api.ts): anything else a correct server may refuse for reasons of HTTP. */
const PLAIN_FORM = { order: 'fields-first', partType: 'own', entries: 0, encoding: 'json', length: 'declared' } as const satisfies Pick<UploadSpec, WireDimension>;
/**
 * The wire dimensions a correct server may refuse a value of: the contract shows no form, and HTTP lets a server refuse
 * a body without a length (411). Not the number of attachmentUrls: §2.1 types it as a list, so any number is valid.
 */
const REFUSABLE: readonly WireDimension[] = ['order', 'partType', 'encoding', 'length'];
const refusableForm = (spec: UploadSpec) => REFUSABLE.some((key) => spec[key] !== PLAIN_FORM[key]);

/** An upload a closing step makes: one pdf to the email conversation, without the flag, in the plain form, but where told otherwise. */
const closingUpload = (changed: Partial<UploadSpec>) =>
  new UploadStep({ files: [{ extension: 'pdf', size: 0, unicode: false }], reuse: undefined, target: 'conversation', flag: 'absent', ...PLAIN_FORM, caller: 0, ...changed });

export class UploadStep extends Step {
  readonly kind = 'upload';

  #files: TestFile[] = [];
  #number = 0;

  constructor(readonly spec: UploadSpec) {
    super();
  }

  check(): boolean {
    return true;
  }

  toString(): string {
    const { spec } = this;
    const names = this.#files.length > 0 ? this.#files.map((file) => `${file.name} (${file.bytes.length} B)`).join(', ') : `${spec.files.length} file(s)`;
    const form = [`parts ${spec.order}`, `declared type ${spec.partType}`, `attachmentUrls ${spec.entries} as ${spec.encoding}`, ...(spec.length === 'chunked' ? ['in chunks, without a Content-Length'] : [])].join(', ');
    return `upload #${this.#number || '?'}: ${names} to the ${spec.target}, isSecureAttachment ${spec.flag}, as token ${spec.caller}; ${form}`;
  }

  protected async send(model: Model, real: Real): Promise<Reply> {
    const { spec } = this;
    this.#number = ++model.uploads;
    const reused = spec.reuse === undefined || model.files.length === 0 ? undefined : model.files[spec.reuse % model.files.length];
    this.#files = spec.files.map(({ extension, size, unicode }, index) => {
      // A space in every name, letters beyond ASCII in some (RFC 7578 §4.2: the client's name, in UTF-8): every route reads them back.
      const name = index === 0 && reused ? reused.file.name : `model ${this.#number}-${index + 1}${unicode ? ' résumé 日本' : ''}.${extension}`;
      return testFile(name, modelFileSize(this.#number, size));
    });
    const caller = tokenOf(model, spec.caller);
    real.log[real.log.length - 1] = this.toString();
    const form = { fields: this.#fields(real.target), files: this.#files, order: spec.order, partType: PART_TYPES[spec.partType], chunked: spec.length === 'chunked' };
    return real.api.upload(`model: ${this.toString()}`, { ...form, auth: caller.auth });
  }

  #fields(target: Target): Fields {
    const { spec } = this;
    const fields: Fields = { locationId: target.locationId };
    if (spec.target === 'non-email') fields.conversationId = target.nonEmailConversationId as string;
    if (spec.target === 'conversation' || spec.target === 'both') fields.conversationId = target.conversationId;
    if (spec.target === 'contact' || spec.target === 'both') fields.contactId = target.contactId;
    const urls = Array.from({ length: spec.entries }, (_, i) => `https://example.com/model/attachment-${i + 1}.pdf`);
    if (spec.encoding === 'json') fields.attachmentUrls = JSON.stringify(urls);
    // A list of no entry has no repeated field: it goes as the JSON text, the suite's form.
    else if (urls.length === 0) fields.attachmentUrls = '[]';
    else fields[spec.encoding === 'brackets' ? 'attachmentUrls[]' : 'attachmentUrls'] = urls;
    if (spec.flag !== 'absent') fields.isSecureAttachment = spec.flag;
    return fields;
  }

  protected async judge(model: Model, real: Real, sent: unknown): Promise<void> {
    const reply = sent as Reply;
    const { spec } = this;
    const what = `upload #${this.#number}`;
    const caller = tokenOf(model, spec.caller);
    if (!accepted(reply)) {
      if (reply.status === 429) throw new NotApplicable(`${what} was still rate limited after the retries`);
      if (refusableForm(spec)) throw new NotApplicable(`${what} in this wire form answered ${shown(reply)}; the contract does not show the form, and a correct server may refuse it`);
      if (model.mayRefuse(spec.target, spec.flag)) throw new NotApplicable(`${what} answered ${shown(reply)}: the secure flag is for the email channel only before the change`);
      // From the change the flag is ignored: refusing it where it was not for does not ignore it.
      const flagRefused = spec.flag === 'true' && (spec.target === 'non-email' || spec.target === 'contact');
      const listRefused = spec.entries !== PLAIN_FORM.entries;
      mustAccept(reply, what, caller.issuedBy ?? (flagRefused ? 'CUTOVER-FLAG-IGNORED' : listRefused ? 'UPLOAD-ATTACHMENT-URLS-LIST' : 'UPLOAD-ACCEPTED'));
    }
    const offered = offeredUrls(reply);
    const served = await urlsServing(real.api, offered, this.#files);
    const expected = model.expectedKind(spec.target, spec.flag);
    // A URL of the answer that served none of its files: the URL of a file it did not serve as it must.
    const dangling = offered.some((url) => ![...served.values()].includes(url));
    for (const file of this.#files) {
      const url = served.get(file.name);
      if (url === undefined) {
        const rule = !dangling || expected.kind === 'open' ? 'UPLOAD-URL-PER-FILE' : expected.kind === 'permanent' ? 'PERMANENT-URL-ANONYMOUS' : 'SECURE-PUBLIC-WINDOW';
        model.note(new Disagreement(rule, `${what}: no URL of the answer serves the bytes of ${file.name}, read at once (${shown(reply)})`));
        continue;
      }
      const secure = slugOf(url) !== undefined;
      if (expected.kind === 'secure' && !secure) {
        model.note(new Disagreement(expected.rule, `${what}: ${file.name} got ${real.api.evidence.redact(url)}, not a secure URL /files/d/{slug}, at ${new Date(model.now).toISOString()} by the server's clock`));
      }
      // What the server made of it, where the model's expectation was broken or open: later steps judge that.
      const kind = expected.kind === 'permanent' || !secure ? 'permanent' : 'secure';
      model.files.push({ label: `#${model.files.length + 1}`, file, url, kind, uploadedAt: model.now, upload: this.#number });
      model.focus.file = model.files.at(-1);
    }
  }
}


/** How much an upload's file size may vary (the spec's `size`, 0 to SIZE_SPREAD). */
export const SIZE_SPREAD = 40;

/**
 * The size of a file of upload `upload`: above every type's least size, and in a range of its own for each upload, so
 * that a reused name never brings the same bytes (a file's bytes follow from its name and size), and a URL that serves
 * another file's bytes is told apart. Ranges that overlapped once judged a correct server wrong (GENERATOR_SEED=6).
 */
export const modelFileSize = (upload: number, size: number): number => 600 + (SIZE_SPREAD + 1) * upload + size;

/** `reuse`: always give the first file an earlier file's name (where there is one), or only sometimes. */
export const uploadSpec = (targets: readonly UploadTarget[], flags: readonly SecureFlag[], wire: boolean, minFiles: number, reuse: 'always' | 'sometimes'): fc.Arbitrary<UploadSpec> =>
  fc.record({
    files: fc.array(fc.record({ extension: fc.constantFrom(...EXTENSIONS), size: fc.nat(SIZE_SPREAD), unicode: fc.boolean() }), { minLength: minFiles, maxLength: 3 }),
    reuse: reuse === 'always' ? fc.nat(8) : fc.option(fc.nat(8), { nil: undefined }),
    target: fc.constantFrom(...targets),
    flag: fc.constantFrom(...flags),
    order: wire ? fc.constantFrom<PartOrder>('fields-first', 'files-first', 'between') : fc.constant<PartOrder>(PLAIN_FORM.order),
    partType: wire ? fc.constantFrom<PartType>('own', 'generic', 'other') : fc.constant<PartType>(PLAIN_FORM.partType),
    entries: wire ? fc.constantFrom<0 | 1 | 3>(0, 1, 3) : fc.constant<0>(PLAIN_FORM.entries),
    encoding: wire ? fc.constantFrom<ListEncoding>('json', 'repeated', 'brackets') : fc.constant<ListEncoding>(PLAIN_FORM.encoding),
    caller: fc.nat(3),
    length: wire ? fc.constantFrom<UploadSpec['length']>('declared', 'chunked') : fc.constant<UploadSpec['length']>(PLAIN_FORM.length),
  });

/**
 * The clock moved across the change where it can be (a run still before it), then one upload of one file without the
 * flag to each target in turn: every channel shows its regime after the change. Every sequence of the change's profile
 * ends with it (closingOf): drawn uploads alone may leave a channel out after the change, or send it only with the
 * flag false, which shows a channel's fault as CUTOVER-FLAG-IGNORED alone, or not at all (GENERATOR_SEED=2 and 9, for
 * cutover-email-only). Drawn among the steps instead, it was missing from every sequence of some seeds.
 */
export class EveryTargetStep extends StepsInTurn {
  readonly #across = new ClockStep('across the change');

  constructor(private readonly targets: readonly UploadTarget[]) {
    super();
  }

  check(): boolean {
    return true;
  }

  toString(): string {
    return `across the change, upload one file without the flag to each of: ${this.targets.join(', ')}`;
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    if (this.#across.check(model)) await this.part(this.#across, model, real);
    for (const target of this.targets) await this.part(closingUpload({ target }), model, real);
  }
}

/**
 * Secure uploads in every value of every wire dimension, one upload each: the parts' order with two files, a body in
 * chunks, each other declared type, three attachmentUrls, each other list encoding. Every sequence of the wire profile
 * ends with it (closingOf): with two sequences a test, drawn uploads alone left the flag after the files, or a chunked
 * body, out of every secure upload at GENERATOR_SEED=1 (secure-flag-dropped-after-file, secure-flag-dropped-chunked).
 * Each form changes one dimension of the plain form (an encoding needs a URL to show), so a value a correct server may
 * refuse (not applicable) hides no other: three URLs in the plain encoding, which a correct server takes, are judged.
 */
export class EveryWireFormStep extends StepsInTurn {
  static readonly #forms: Partial<Pick<UploadSpec, WireDimension>>[] = [
    { order: 'files-first' },
    { order: 'between' },
    { length: 'chunked' },
    { partType: 'generic' },
    { partType: 'other' },
    { entries: 3 },
    { entries: 1, encoding: 'repeated' },
    { entries: 3, encoding: 'brackets' },
  ];

  check(): boolean {
    return true;
  }

  toString(): string {
    return 'a secure upload in each wire form: the files before the fields, the fields between two files, in chunks, each declared type, three attachmentUrls, each list encoding';
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    for (const form of EveryWireFormStep.#forms) {
      // Two files where their place among the fields is the form: between needs two.
      const files = Array.from({ length: form.order === undefined ? 1 : 2 }, (_, i) => ({ extension: EXTENSIONS[i], size: i, unicode: false }));
      await this.part(closingUpload({ ...form, files, flag: 'true' }), model, real);
    }
  }
}


/**
 * A new file under the name of an earlier non-secure file of the run (one uploaded first where the run has none), then
 * every file read: a server that keys what it stores by the name shows it whatever was drawn. The closing step of the
 * names' profile: drawn reuses alone took secure files' names, or none, at some seeds (upload-name-overwrites at
 * GENERATOR_SEED 177718646).
 */
export class NameTakenAgainStep extends StepsInTurn {
  check(): boolean {
    return true;
  }

  toString(): string {
    return "an upload under an earlier non-secure file's name, then every file read";
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    if (!model.files.some((file) => file.kind === 'permanent')) await this.part(closingUpload({}), model, real);
    const earlier = model.files.findIndex((file) => file.kind === 'permanent');
    // Its new file's size differs from every earlier one's, so its bytes do too (modelFileSize).
    if (earlier >= 0) await this.part(closingUpload({ reuse: earlier }), model, real);
    await this.part(readSweep(), model, real);
  }
}
