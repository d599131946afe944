// The uploads of a sequence: every wire form, target and flag, data related to earlier uploads' (relations.ts), the
// invalid uploads refused among them, and the closing steps made of uploads.
import fc from 'fast-check';
import { accepted, type Auth, type Fields, type PartOrder, type Reply } from '../client/api.ts';
import { offeredUrls, slugOf, urlsServing } from '../checks/discover.ts';
import type { Target } from '../config/config.ts';
import { extensionOf } from '../contract/contract.ts';
import { type BytesRelation, EQUIVALENT_NAMES, type EquivalentName, type LocationRelation, type NameRelation, relatedName } from '../contract/relations.ts';
import type { RuleId } from '../contract/rules.ts';
import { testFile, type TestFile } from '../files/test-file.ts';
import { Disagreement, expiredMayRefuse, regimeClass, mayBePrivate, type Model, type ModelFile, mustAccept, NotApplicable, type SecureFlag, shown, type UploadTarget } from './model.ts';
import { ClockStep } from './clock.ts';
import { readSweep, SignedStep, unsignedSweep } from './files.ts';
import { requestFormCases } from '../contract/cases.ts';
import { describeSpelling, type Spelling } from '../contract/spelling.ts';
import { FOCUS, type Real, Step, tokenOf, StepsInTurn } from './step.ts';


const EXTENSIONS = ['pdf', 'png', 'txt', 'mp3', 'zip', 'csv'] as const;
/** A part's declared Content-Type: none (the client's guess from the name), a generic one, or another allowed type's. */
export type PartType = 'own' | 'generic' | 'other';
/** How the list attachmentUrls travels in a form (§2.1 does not say): a JSON text, the field repeated, `attachmentUrls[]` repeated. */
export type ListEncoding = 'json' | 'repeated' | 'brackets';

export interface UploadSpec {
  /** Each file's extension, a size step (two files of one name differ in size, so in bytes), and a name beyond ASCII. */
  files: { extension: (typeof EXTENSIONS)[number]; size: number; unicode: boolean }[];
  /**
   * How the first file relates to an earlier file of the run, `earlier` (an index wrapping around those the name
   * relation changes, or FOCUS): its name, and its bytes, which then keep that file's type. Nothing where the run has none.
   */
  relation: { name: NameRelation; bytes: BytesRelation; earlier: number };
  /** LOCATION_ID as `caller`, or FOREIGN_LOCATION_ID as FOREIGN_ACCESS_TOKEN, to its conversation (its contact where none is set) in place of `target`. */
  location: LocationRelation;
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
  /** Another form HTTP and multipart permit (specs/cases/request-forms.json), where not the suite's own. */
  spelling?: Spelling;
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
 * The wire dimensions a correct server may refuse a value of: the contract shows neither a part's declared type nor
 * the list's encoding, and HTTP lets a server refuse a body without a length (411). Not the number of attachmentUrls:
 * §2.1 types it as a list, so any number is valid (MUST); nor the parts' order: RFC 7578 orders no part, and a refusal
 * of fields after files is UPLOAD-FIELDS-AFTER-FILES's finding (SHOULD), as the single-request check judges it.
 */
const REFUSABLE: readonly WireDimension[] = ['partType', 'encoding', 'length'];
// A list of no entry goes as the JSON text whatever the encoding drawn (#listAndFlag).
const refusableForm = (spec: UploadSpec) => REFUSABLE.some((key) => spec[key] !== PLAIN_FORM[key] && (key !== 'encoding' || spec.entries > 0));

/** A plain upload (a closing step's, a walk's first): one fresh pdf to the email conversation, without the flag, in the plain form, but where told otherwise. */
export const plainUpload = (changed: Partial<UploadSpec>) =>
  new UploadStep({
    files: [{ extension: 'pdf', size: 0, unicode: false }],
    relation: { name: 'fresh', bytes: 'fresh', earlier: 0 },
    location: 'own',
    target: 'conversation',
    flag: 'absent',
    ...PLAIN_FORM,
    caller: 0,
    ...changed,
  });

/** The earlier files whose name `relation` changes, each with the name it makes: a step picks among them by an index that wraps around. */
const namesRelated = (files: readonly ModelFile[], relation: EquivalentName): { file: ModelFile; name: string }[] =>
  files.flatMap((file) => {
    const name = relatedName(relation, file.file.name);
    return name === undefined ? [] : [{ file, name }];
  });

/** The earlier file `index` picks among `among`, wrapping around; FOCUS: the file the last step acted on (the last where it is not among them). */
const chosen = <T extends { file: ModelFile }>(among: readonly T[], index: number, focused: ModelFile | undefined): T =>
  index === FOCUS ? (among.find(({ file }) => file === focused) ?? (among.at(-1) as T)) : among[index % among.length];

/** A new file's name: a space in every one, letters beyond ASCII in some (RFC 7578 §4.2: the client's name, in UTF-8), so every route reads them back. */
const freshName = (upload: number, index: number, unicode: boolean, extension: string) => `model ${upload}-${index + 1}${unicode ? ' résumé 日本' : ''}.${extension}`;

/** Where an upload goes and as whom: the run's location, or the other one, where its settings are all set. */
interface Destination {
  fields: Fields;
  auth: Auth;
  /** What the model judges its files' kind by. */
  target: UploadTarget;
}

function otherLocation(target: Target): Destination | undefined {
  const { foreignLocationId, foreignConversationId, foreignContactId } = target;
  if (foreignLocationId === undefined || target.tokens.foreignAccess === undefined) return undefined;
  // FOREIGN_CONVERSATION_ID is an email conversation (src/config/config.ts).
  if (foreignConversationId !== undefined) return { fields: { locationId: foreignLocationId, conversationId: foreignConversationId }, auth: 'foreignAccess', target: 'conversation' };
  if (foreignContactId !== undefined) return { fields: { locationId: foreignLocationId, contactId: foreignContactId }, auth: 'foreignAccess', target: 'contact' };
  return undefined;
}

export class UploadStep extends Step {
  readonly kind = 'upload';

  #files: TestFile[] = [];
  #number = 0;
  /** How its first file turned out related to an earlier one's, as the log shows it. */
  #related = '';
  #destination: Destination | undefined;
  /** The model's clock and the test clock's moves as it was sent: a move in flight with it leaves its instant open. */
  #sent = { at: 0, moves: 0 };

  constructor(readonly spec: UploadSpec) {
    super();
  }

  check(): boolean {
    return true;
  }

  toString(): string {
    const { spec } = this;
    const names = this.#files.length > 0 ? this.#files.map((file) => `${JSON.stringify(file.name)} (${file.bytes.length} B)`).join(', ') : `${spec.files.length} file(s)`;
    const form = [`parts ${spec.order}`, `declared type ${spec.partType}`, `attachmentUrls ${spec.entries} as ${spec.encoding}`, ...(spec.length === 'chunked' ? ['in chunks, without a Content-Length'] : []), ...(spec.spelling ? [`written with ${describeSpelling(spec.spelling)}`] : [])].join(', ');
    const where = spec.location === 'other' ? `to FOREIGN_LOCATION_ID's ${this.#destination?.target ?? 'conversation'} as FOREIGN_ACCESS_TOKEN` : `to the ${spec.target}, as token ${spec.caller}`;
    return `upload #${this.#number || '?'}: ${names}${this.#related} ${where}, isSecureAttachment ${spec.flag}; ${form}`;
  }

  protected async send(model: Model, real: Real): Promise<Reply | undefined> {
    const { spec } = this;
    this.#number = ++model.uploads;
    this.#sent = { at: model.now, moves: real.clock.moves };
    this.#files = spec.files.map(({ extension, size, unicode }, index) => (index === 0 ? this.#first(model, real) : testFile(freshName(this.#number, index, unicode, extension), modelFileSize(this.#number, size))));
    this.#destination = spec.location === 'other' ? otherLocation(real.target) : { fields: this.#target(real.target), auth: tokenOf(model, spec.caller).auth, target: spec.target };
    real.log[real.log.length - 1] = this.toString();
    if (this.#destination === undefined) return undefined;
    const form = { fields: { ...this.#destination.fields, ...this.#listAndFlag() }, files: this.#files, order: spec.order, partType: PART_TYPES[spec.partType], chunked: spec.length === 'chunked' };
    return real.api.upload(`model: ${this.toString()}`, { ...form, auth: this.#destination.auth, ...(spec.spelling ? { spelling: spec.spelling } : {}) });
  }

  /** The first file: its name and bytes related to an earlier file's as drawn, where the run has one the relation applies to. */
  #first(model: Model, real: Real): TestFile {
    const [{ extension, size, unicode }] = this.spec.files;
    const { name: nameRelation, bytes, earlier } = this.spec.relation;
    const candidates = nameRelation === 'fresh' ? [] : namesRelated(model.files, nameRelation);
    const named = candidates.length > 0 ? chosen(candidates, earlier, model.focus.file) : undefined;
    const source = named?.file ?? (bytes === 'equal' && model.files.length > 0 ? chosen(model.files.map((file) => ({ file })), earlier, model.focus.file).file : undefined);
    const twin = bytes === 'equal' ? source : undefined;
    const name = named?.name ?? freshName(this.#number, 0, unicode, twin ? extensionOf(twin.file.name) : extension);
    const related = [`name: ${named ? nameRelation : 'fresh'}`, `bytes: ${twin ? 'equal' : 'fresh'}`] as const;
    const { spec } = this;
    real.coverage.event('upload', { regime: regimeClass(model), flag: spec.flag, files: spec.files.length > 1 ? 'several' : 'one', name: named ? 'related' : 'fresh', bytes: twin ? 'equal' : 'fresh', location: spec.location, form: spec.spelling ? 'other' : 'own' });
    this.#related = source ? ` (${related.join(', ')} of file ${source.label}, upload #${source.upload})` : '';
    // The earlier file's bytes as testFile() made them from a name and a size (knownTestFile), so a recording names them
    // again; the name keeps their type. Fresh bytes: a size of this upload's own range (modelFileSize).
    return twin ? { ...twin.file, name } : testFile(name, modelFileSize(this.#number, size));
  }

  /** The target's fields in LOCATION_ID. */
  #target(target: Target): Fields {
    const { spec } = this;
    const fields: Fields = { locationId: target.locationId };
    if (spec.target === 'non-email') fields.conversationId = target.nonEmailConversationId as string;
    if (spec.target === 'conversation' || spec.target === 'both') fields.conversationId = target.conversationId;
    if (spec.target === 'contact' || spec.target === 'both') fields.contactId = target.contactId;
    return fields;
  }

  /** attachmentUrls in the drawn number and encoding, and the flag. */
  #listAndFlag(): Fields {
    const { spec } = this;
    const fields: Fields = {};
    const urls = Array.from({ length: spec.entries }, (_, i) => `https://example.com/model/attachment-${i + 1}.pdf`);
    if (spec.encoding === 'json') fields.attachmentUrls = JSON.stringify(urls);
    // A list of no entry has no repeated field: it goes as the JSON text, the suite's form.
    else if (urls.length === 0) fields.attachmentUrls = '[]';
    else fields[spec.encoding === 'brackets' ? 'attachmentUrls[]' : 'attachmentUrls'] = urls;
    if (spec.flag !== 'absent') fields.isSecureAttachment = spec.flag;
    return fields;
  }

  protected async judge(model: Model, real: Real, sent: unknown): Promise<void> {
    const reply = sent as Reply | undefined;
    const { spec } = this;
    const what = `upload #${this.#number}`;
    const destination = this.#destination;
    if (reply === undefined || destination === undefined) throw new NotApplicable(`${what}: FOREIGN_LOCATION_ID, FOREIGN_ACCESS_TOKEN and FOREIGN_CONVERSATION_ID or FOREIGN_CONTACT_ID are not all set`);
    const caller = tokenOf(model, spec.caller);
    if (!accepted(reply)) {
      if (reply.status === 429) throw new NotApplicable(`${what} was still rate limited after the retries`);
      // The contract knows nothing of the other location: its token's scopes are the target's setting.
      if (spec.location === 'other') throw new NotApplicable(`${what}, into FOREIGN_LOCATION_ID as FOREIGN_ACCESS_TOKEN, answered ${shown(reply)}`);
      if (refusableForm(spec)) throw new NotApplicable(`${what} in this wire form answered ${shown(reply)}; the contract does not show the form, and a correct server may refuse it`);
      if (model.mayRefuse(spec.target, spec.flag)) throw new NotApplicable(`${what} answered ${shown(reply)}: the secure flag is for the email channel only before the change`);
      expiredMayRefuse(model, caller, reply);
      // A form HTTP and multipart permit, refused where the suite's own is valid: the protocol's finding, and the sequence goes on.
      if (spec.spelling) {
        model.note(new Disagreement('HTTP-REQUEST-FORMS', `${what}, written with ${describeSpelling(spec.spelling)}, answered ${shown(reply)}: the same upload in the suite's own form is valid`));
        return;
      }
      // A form the contract permits, refused where the plain form's upload is valid: a finding named by its form, never
      // silence; the refused upload changes nothing, and the sequence goes on.
      if (spec.order !== PLAIN_FORM.order) {
        const where = spec.order === 'files-first' ? 'after its files' : 'between its files';
        // With several attachmentUrls as well, the refusal may be the list's (a MUST); it may as well be the order's, which a
        // server breaking only a SHOULD may refuse: the finding names both, a warning.
        const list = spec.entries > 0 ? `, with ${spec.entries} attachmentUrls,` : '';
        model.note(new Disagreement('UPLOAD-FIELDS-AFTER-FILES', `${what}, its fields ${where}${list} answered ${shown(reply)}: the same upload with its fields first is valid, and RFC 7578 orders no part`));
        return;
      }
      // From the change the flag is ignored: refusing it where it was not for does not ignore it.
      const flagRefused = spec.flag === 'true' && (spec.target === 'non-email' || spec.target === 'contact');
      const listRefused = spec.entries !== PLAIN_FORM.entries;
      mustAccept(reply, what, caller.issuedBy ?? (flagRefused ? 'CUTOVER-FLAG-IGNORED' : listRefused ? 'UPLOAD-ATTACHMENT-URLS-LIST' : 'UPLOAD-ACCEPTED'));
    }
    // The clock moved while it was in flight (a step at once, or sent before its answer was judged): the server took it
    // at some instant from its send to that move's, and its URLs are read after the move.
    const from = this.#sent.at;
    const by = Math.max(from, model.now, real.clock.moves === this.#sent.moves ? from : real.clock.lastSet);
    const moved = `the clock moved from ${new Date(from).toISOString()} to ${new Date(by).toISOString()} while ${what} was in flight`;
    if (model.expectedKind(destination.target, spec.flag, from).kind !== model.expectedKind(destination.target, spec.flag, by).kind) {
      throw new NotApplicable(`${moved}: whether its files are secure depends on which the server took first`);
    }
    const offered = offeredUrls(reply);
    const served = await urlsServing(real.api, offered, this.#files);
    const expected = model.expectedKind(destination.target, spec.flag);
    if (served.size < this.#files.length && expected.kind !== 'permanent' && mayBePrivate(from, by)) {
      throw new NotApplicable(`${moved}: a secure URL may be past its public hour when read, so which URL serves which file is not known`);
    }
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
      const label = `#${model.files.length + 1}${spec.location === 'other' ? ' (FOREIGN_LOCATION_ID)' : ''}`;
      model.files.push({ label, file, url, kind, uploadedAt: from, ...(by > from ? { uploadedBy: by } : {}), upload: this.#number, location: spec.location });
      // The upload's first file, the one its relations were drawn for: the next step on the focus acts on it.
      if (file === this.#files[0]) model.focus.file = model.files.at(-1);
    }
  }
}


/** The invalid uploads of the single-request checks (specs/cases/upload-limits.json, specs/upload-fields.spec.ts), each with the rule that refuses it. */
const REFUSALS = {
  'a sixth file': 'UPLOAD-FILES-MAX',
  'a .exe file after the others': 'UPLOAD-EXT-OTHER',
  'neither conversationId nor contactId': 'UPLOAD-TARGET-REQUIRED',
  'no locationId': 'UPLOAD-LOCATION-REQUIRED',
  'no file': 'UPLOAD-FILES-MIN',
  'no attachmentUrls': 'UPLOAD-ATTACHMENT-URLS',
  'no Authorization': 'AUTH-TOKEN-REQUIRED',
} as const satisfies Record<string, RuleId>;
export type Refusal = keyof typeof REFUSALS;

/**
 * An invalid upload to LOCATION_ID, which must be refused (a SHOULD rule's refusal at its level) and change nothing:
 * the model takes none of its files, so every later answer is judged as if it had not been sent. Its valid files take
 * names related to earlier files of the location (`relation`, from the earlier file `earlier` on) with bytes of their
 * own: a server that stores a refused upload's files, or some of them, over earlier ones shows it at the next read.
 */
export class RefusedUploadStep extends Step {
  readonly kind = 'refused upload';

  #files: TestFile[] = [];
  #number = 0;

  constructor(
    readonly refusal: Refusal,
    readonly relation: EquivalentName,
    readonly earlier: number,
    /** Its valid files, but for a sixth file (six) and no file (none). */
    readonly count: number,
  ) {
    super();
  }

  check(): boolean {
    return true;
  }

  toString(): string {
    const names = this.#files.map((file) => `${JSON.stringify(file.name)} (${file.bytes.length} B)`).join(', ');
    return `refused upload #${this.#number || '?'}: ${this.refusal}; ${names || 'no file'}, names ${this.relation} to earlier files`;
  }

  protected async send(model: Model, real: Real): Promise<Reply> {
    this.#number = ++model.uploads;
    const valid = this.refusal === 'a sixth file' ? 6 : this.refusal === 'no file' ? 0 : this.count;
    const candidates = namesRelated(
      model.files.filter((file) => file.location === 'own'),
      this.relation,
    );
    // Each earlier file once, the others fresh: a name taken twice in one upload would be a second reason to refuse it.
    const names = Array.from({ length: valid }, (_, i) => (i < candidates.length ? candidates[(this.earlier + i) % candidates.length].name : freshName(this.#number, i, false, 'pdf')));
    real.coverage.event('refused upload', { regime: regimeClass(model) });
    this.#files = [...names, ...(this.refusal === 'a .exe file after the others' ? [freshName(this.#number, valid, false, 'exe')] : [])].map((name, i) => testFile(name, modelFileSize(this.#number, i)));
    real.log[real.log.length - 1] = this.toString();
    const { target } = real;
    const fields: Fields = { locationId: target.locationId, conversationId: target.conversationId, attachmentUrls: '[]' };
    if (this.refusal === 'neither conversationId nor contactId') delete fields.conversationId;
    if (this.refusal === 'no locationId') delete fields.locationId;
    if (this.refusal === 'no attachmentUrls') delete fields.attachmentUrls;
    const auth = this.refusal === 'no Authorization' ? 'none' : tokenOf(model, 0).auth;
    return real.api.upload(`model: ${this.toString()}`, { fields, files: this.#files, auth });
  }

  protected async judge(model: Model, _real: Real, sent: unknown): Promise<void> {
    const reply = sent as Reply;
    const what = `refused upload #${this.#number} (${this.refusal})`;
    if (reply.status === 429) throw new NotApplicable(`${what} was still rate limited after the retries`);
    // A 4xx refuses it; a 5xx is a server error, never a valid refusal.
    if (accepted(reply) || reply.status >= 500) model.note(new Disagreement(REFUSALS[this.refusal], `${what} answered ${shown(reply)}, not a refusal`));
  }
}

/** Invalid uploads of every kind, their files' names related to earlier files by every equivalence. */
export const refusedUploadArbitrary = (): fc.Arbitrary<Step> =>
  fc
    .tuple(fc.constantFrom(...(Object.keys(REFUSALS) as Refusal[])), fc.constantFrom(...EQUIVALENT_NAMES), fc.nat(8), fc.integer({ min: 1, max: 3 }))
    .map(([refusal, relation, earlier, count]) => new RefusedUploadStep(refusal, relation, earlier, count));

/** How much an upload's file size may vary (the spec's `size`, 0 to SIZE_SPREAD). */
export const SIZE_SPREAD = 40;

/**
 * The size of a file of upload `upload`: above every type's least size, and in a range of its own for each upload, so
 * that a related name never brings the same bytes (a file's bytes follow from its name and size; only the bytes
 * relation `equal` repeats an earlier file's), and a URL that serves
 * another file's bytes is told apart. Ranges that overlapped once judged a correct server wrong (GENERATOR_SEED=6).
 */
export const modelFileSize = (upload: number, size: number): number => 600 + (SIZE_SPREAD + 1) * upload + size;

/**
 * `reuse`: always give the first file a name related to an earlier file's (where there is one), or only half the
 * time. Its bytes are an earlier file's one time in three, and one upload in four goes to the other location: the
 * simplest values, fresh and own, first (a failure shrinks towards them).
 */
export const uploadSpec = (targets: readonly UploadTarget[], flags: readonly SecureFlag[], wire: boolean, minFiles: number, reuse: 'always' | 'sometimes'): fc.Arbitrary<UploadSpec> =>
  fc.record({
    files: fc.array(fc.record({ extension: fc.constantFrom(...EXTENSIONS), size: fc.nat(SIZE_SPREAD), unicode: fc.boolean() }), { minLength: minFiles, maxLength: 3 }),
    relation: fc.record({
      name: reuse === 'always' ? fc.constantFrom<NameRelation>(...EQUIVALENT_NAMES) : fc.oneof(fc.constant<NameRelation>('fresh'), fc.constantFrom<NameRelation>(...EQUIVALENT_NAMES)),
      bytes: fc.constantFrom<BytesRelation>('fresh', 'fresh', 'equal'),
      earlier: fc.nat(8),
    }),
    location: fc.constantFrom<LocationRelation>('own', 'own', 'own', 'other'),
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
    for (const target of this.targets) await this.part(plainUpload({ target }), model, real);
  }
}

/**
 * Secure uploads in every value of every wire dimension, one upload each: the parts' order with two files, a body in
 * chunks, each other declared type, three attachmentUrls, each other list encoding. Every sequence of the wire profile
 * ends with it (closingOf): with two sequences a test, drawn uploads alone left the flag after the files, or a chunked
 * body, out of every secure upload at GENERATOR_SEED=1 (secure-flag-dropped-after-file, secure-flag-dropped-chunked).
 * Each form changes one dimension of the plain form (an encoding needs a URL to show), so a value a correct server may
 * refuse (not applicable) hides no other: three URLs in the plain encoding, which a correct server takes, are judged.
 * Last, the bytes relation (relations.ts): a secure upload of the bytes of a file just uploaded without the flag (the
 * focus, so that the pair survives shrinking), which drawn uploads alone never made at GENERATOR_SEED 1 to 10
 * (upload-dedupe-by-bytes).
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
    return "a secure upload in each wire form: the files before the fields, the fields between two files, in chunks, each declared type, three attachmentUrls, each list encoding; then of a non-secure file's bytes";
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    for (const form of EveryWireFormStep.#forms) {
      // Two files where their place among the fields is the form: between needs two.
      const files = Array.from({ length: form.order === undefined ? 1 : 2 }, (_, i) => ({ extension: EXTENSIONS[i], size: i, unicode: false }));
      await this.part(plainUpload({ ...form, files, flag: 'true' }), model, real);
    }
    // Each form HTTP and multipart permit an upload (specs/cases/request-forms.json), a secure upload each, its file
    // then signed in the same form: a server that reads a form otherwise shows it in what it stores or signs.
    for (const { spelling } of requestFormCases().filter((row) => row.operation === 'upload')) {
      await this.part(plainUpload({ flag: 'true', spelling }), model, real);
      await this.part(new SignedStep(FOCUS, 'filesReadonly', spelling), model, real);
    }
    await this.part(plainUpload({}), model, real);
    // After the change every upload is secure: no non-secure bytes are left to take.
    if (model.focus.file?.kind === 'permanent') await this.part(plainUpload({ relation: { name: 'fresh', bytes: 'equal', earlier: FOCUS }, flag: 'true' }), model, real);
  }
}


/**
 * A secure upload of three files to the location, where the run holds no secure file of its own that came after
 * another in its upload; then the signed URL of every secure file not asked for yet. The closing step of the signed
 * URLs' profile: drawn uploads alone may all go to the other location, whose files no token of the run may sign, or
 * go without the flag, and leave no later file of an upload to sign (signed-url-first-file-of-upload survived at the
 * seed of commit 0191f7f, whose two sequences uploaded securely only into the other location).
 */
export class EverySecureFileSignedStep extends StepsInTurn {
  readonly #sweep = unsignedSweep();

  check(): boolean {
    return true;
  }

  toString(): string {
    return 'a secure upload of three files where the run has no later file of an upload to sign; then the signed URL of every secure file not asked for yet';
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    const secure = model.secureFiles();
    const later = secure.some((file, i) => secure.slice(0, i).some((before) => before.upload === file.upload));
    if (!later) await this.part(plainUpload({ files: EXTENSIONS.slice(0, 3).map((extension, size) => ({ extension, size, unicode: false })), flag: 'true' }), model, real);
    if (this.#sweep.check(model)) await this.part(this.#sweep, model, real);
  }
}

/**
 * Names of an earlier non-secure file of the location with letters Unicode decomposes (one uploaded first where the
 * run has none) taken again, each with bytes of its own: by an upload under each equivalent name (relations.ts), by an
 * upload into the other location under the same name, and by a refused upload of six files under the names of the
 * location's files from it on; then every file read. A server that keys what it stores by a name, folded or not, with
 * or without the location, or that stores a refused upload's files, shows it whatever was drawn. The closing step of
 * the names' profile: drawn steps alone took secure files' names, or none, at some seeds (upload-name-overwrites at
 * GENERATOR_SEED 177718646; upload-name-folded-overwrites at 1, 2, 3, 8 and 9).
 */
export class NameTakenAgainStep extends StepsInTurn {
  check(): boolean {
    return true;
  }

  toString(): string {
    return "an earlier non-secure file's name taken again: under each equivalent name, in the other location, by a refused upload; then every file read";
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    const taken = (file: ModelFile) => file.kind === 'permanent' && file.location === 'own' && relatedName('nfd', file.file.name) !== undefined;
    if (!model.files.some(taken)) await this.part(plainUpload({ files: [{ extension: 'pdf', size: 0, unicode: true }] }), model, real);
    const earlier = model.files.find(taken);
    // After the change every upload is secure: no name of a non-secure file is left to take.
    if (earlier !== undefined) {
      // Each new file's size differs from every earlier one's, so its bytes do too (modelFileSize).
      const at = (relation: EquivalentName, among: readonly ModelFile[] = model.files) => namesRelated(among, relation).findIndex(({ file }) => file === earlier);
      for (const name of EQUIVALENT_NAMES) await this.part(plainUpload({ relation: { name, bytes: 'fresh', earlier: at(name) } }), model, real);
      await this.part(plainUpload({ relation: { name: 'equal', bytes: 'fresh', earlier: at('equal') }, location: 'other' }), model, real);
      await this.part(new RefusedUploadStep('a sixth file', 'equal', at('equal', model.files.filter((file) => file.location === 'own')), 6), model, real);
    }
    await this.part(readSweep(), model, real);
  }
}
