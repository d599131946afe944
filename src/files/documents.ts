// Test files: documents (PDF, OLE DOC/XLS/PPT, OOXML, ODT).
// Each builder makes a valid file of its type, padded inside the format to the size asked for; test-file.ts picks
// the builder by extension.
import { type Builder, hex, join, MARK, marks, u16le, u32le } from './bytes.ts';
import { archive } from './archives.ts';

export function pdf(seed: Buffer, size: number): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] /Resources << >> >>',
  ];
  let head = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets = objects.map((object, i) => {
    const offset = head.length;
    head += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  offsets.push(head.length);
  // A fixed-width length keeps every offset before the padding independent of it.
  const stream = (length: number) => `4 0 obj\n<< /Length ${String(length).padEnd(10)}>>\nstream\n`;
  const streamEnd = '\nendstream\nendobj\n';
  const xref = `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n`;
  const build = (length: number, eol: string) => {
    const xrefAt = head.length + stream(length).length + length + streamEnd.length;
    return join([head, stream(length), marks(seed, length), streamEnd, xref, `${xrefAt}\n%%EOF${eol}`]);
  };
  // startxref's digits grow with the padding, skipping a size where they gain one; a CRLF after %%EOF fills it.
  const fixed = head.length + stream(0).length + streamEnd.length + xref.length + '\n%%EOF'.length;
  for (const eol of ['\n', '\r\n'])
    for (let width = 1; width <= 10; width++) {
      const length = size - fixed - width - eol.length;
      if (length >= MARK && String(head.length + stream(0).length + length + streamEnd.length).length === width) return build(length, eol);
    }
  return build(MARK, '\n');
}

/**
 * An OLE compound file (version 3): header, FAT, one directory sector, then two streams: the summary information,
 * whose application name is how file(1) and others tell Word, Excel and PowerPoint apart, and the document stream,
 * which holds the padding. Both are at least the 4096-byte mini-stream cutoff, so the file needs no mini stream; a
 * size off the 512-byte grid ends in a partial sector, holding the document stream's last bytes.
 */
export function compoundFile(stream: string, application: string, clsid: string): Builder {
  const [SECTOR, CUTOFF] = [512, 4096];
  const [FREE, END, FAT, NONE] = [0xffffffff, 0xfffffffe, 0xfffffffd, 0xffffffff];
  const SUMMARY = '\u0005SummaryInformation';
  const appName = Buffer.alloc(4 * Math.ceil((application.length + 1) / 4));
  appName.write(application, 'latin1');
  // One section (FMTID_SummaryInformation) holding the code page (1252) and PIDSI_APPNAME as a VT_LPSTR.
  const section = join([u32le(40 + appName.length), u32le(2), u32le(1), u32le(24), u32le(0x12), u32le(32), u16le(2), u16le(0), u16le(1252), u16le(0), u32le(0x1e), u32le(application.length + 1), appName]);
  const summary = Buffer.alloc(CUTOFF);
  join([u16le(0xfffe), u16le(0), u32le(0x0002000a), Buffer.alloc(16), u32le(1), hex('e0859ff2f94f6810ab9108002b27b3d9'), u32le(48), section]).copy(summary);
  // Siblings are ordered by name length, then by upper-cased name.
  const summaryFirst = SUMMARY.length < stream.length || (SUMMARY.length === stream.length && SUMMARY.toUpperCase() < stream.toUpperCase());
  const entry = (name: string, type: number, black: boolean, [left, right, child]: number[], classId: Buffer, start: number, length: number) => {
    const out = Buffer.alloc(128);
    out.write(name, 0, 'utf16le');
    out.writeUInt16LE(2 * (name.length + 1), 64);
    out.writeUInt8(type, 66);
    out.writeUInt8(black ? 1 : 0, 67);
    [left, right, child].forEach((sibling, i) => out.writeUInt32LE(sibling, 68 + 4 * i));
    classId.copy(out, 80);
    out.writeUInt32LE(start, 116);
    out.writeUInt32LE(length, 120);
    return out;
  };
  return function compoundDocument(seed, size) {
    let fatSectors = 1;
    const dataLength = () => Math.max(size - SECTOR * (2 + fatSectors) - CUTOFF, CUTOFF);
    while ((SECTOR / 4) * fatSectors < fatSectors + 1 + CUTOFF / SECTOR + Math.ceil(dataLength() / SECTOR)) fatSectors++;
    // The header lists at most 109 FAT sectors (about 7 MB of file); more would need DIFAT sectors.
    if (fatSectors > 109) throw new Error(`test-files: a compound file of ${size} bytes is not supported`);
    const data = marks(seed, dataLength());
    const [summaryAt, dataAt] = [fatSectors + 1, fatSectors + 1 + CUTOFF / SECTOR];

    const header = Buffer.alloc(SECTOR);
    hex('d0cf11e0a1b11ae1').copy(header, 0);
    [[24, 0x3e], [26, 3], [28, 0xfffe], [30, 9], [32, 6]].forEach(([at, value]) => header.writeUInt16LE(value, at));
    [[44, fatSectors], [48, fatSectors], [56, CUTOFF], [60, END], [68, END]].forEach(([at, value]) => header.writeUInt32LE(value, at));
    for (let i = 0; i < 109; i++) header.writeUInt32LE(i < fatSectors ? i : FREE, 76 + 4 * i);

    const fat = Buffer.alloc(SECTOR * fatSectors, 0xff);
    const chain = (first: number, count: number) => {
      for (let i = 0; i < count; i++) fat.writeUInt32LE(i === count - 1 ? END : first + i + 1, 4 * (first + i));
    };
    for (let i = 0; i < fatSectors; i++) fat.writeUInt32LE(FAT, 4 * i);
    chain(fatSectors, 1);
    chain(summaryAt, CUTOFF / SECTOR);
    chain(dataAt, Math.ceil(data.length / SECTOR));

    const none = Buffer.alloc(16);
    const directory = join([
      entry('Root Entry', 5, true, [NONE, NONE, 1], hex(clsid), END, 0),
      entry(stream, 2, true, summaryFirst ? [2, NONE, NONE] : [NONE, 2, NONE], none, dataAt, data.length),
      entry(SUMMARY, 2, false, [NONE, NONE, NONE], none, summaryAt, CUTOFF),
      entry('', 0, false, [NONE, NONE, NONE], none, 0, 0),
    ]);
    return join([header, fat, directory, summary, data]);
  };
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const OFFICE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const contentTypes = (overrides: Record<string, string>) =>
  `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  Object.entries(overrides)
    .map(([part, type]) => `<Override PartName="${part}" ContentType="application/vnd.openxmlformats-officedocument.${type}"/>`)
    .join('') +
  '</Types>';

const relationships = (type: string, target: string) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="${OFFICE_RELATIONSHIPS}/${type}" Target="${target}"/></Relationships>`;

// OOXML packages: the parts Office needs, the main part third (where file(1) looks), padded by an XML comment.

export function docx(seed: Buffer, size: number): Buffer {
  const files: [string, string][] = [
    ['[Content_Types].xml', contentTypes({ '/word/document.xml': 'wordprocessingml.document.main+xml' })],
    ['_rels/.rels', relationships('officeDocument', 'word/document.xml')],
  ];
  const body = '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Test file</w:t></w:r></w:p></w:body></w:document>';
  return archive(seed, size, files, ['word/document.xml', `${XML}<!-- `, ` -->\n${body}`]);
}

export function xlsx(seed: Buffer, size: number): Buffer {
  const files: [string, string][] = [
    ['[Content_Types].xml', contentTypes({ '/xl/workbook.xml': 'spreadsheetml.sheet.main+xml', '/xl/worksheets/sheet1.xml': 'spreadsheetml.worksheet+xml' })],
    ['_rels/.rels', relationships('officeDocument', 'xl/workbook.xml')],
    [
      'xl/workbook.xml',
      `${XML}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${OFFICE_RELATIONSHIPS}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    ['xl/_rels/workbook.xml.rels', relationships('worksheet', 'worksheets/sheet1.xml')],
  ];
  const sheet = '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/></worksheet>';
  return archive(seed, size, files, ['xl/worksheets/sheet1.xml', `${XML}<!-- `, ` -->\n${sheet}`]);
}

export function pptx(seed: Buffer, size: number): Buffer {
  const files: [string, string][] = [
    ['[Content_Types].xml', contentTypes({ '/ppt/presentation.xml': 'presentationml.presentation.main+xml' })],
    ['_rels/.rels', relationships('officeDocument', 'ppt/presentation.xml')],
  ];
  const presentation =
    `<p:presentation xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${OFFICE_RELATIONSHIPS}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">` +
    '<p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>';
  return archive(seed, size, files, ['ppt/presentation.xml', `${XML}<!-- `, ` -->\n${presentation}`]);
}

export function odt(seed: Buffer, size: number): Buffer {
  const type = 'application/vnd.oasis.opendocument.text';
  const manifest =
    `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
    `<manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="${type}"/>` +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>';
  const content =
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">' +
    '<office:body><office:text><text:p>Test file</text:p></office:text></office:body></office:document-content>';
  // The mimetype entry comes first and stored, as OpenDocument requires.
  return archive(seed, size, [['mimetype', type], ['META-INF/manifest.xml', manifest]], ['content.xml', `${XML}<!-- `, ` -->\n${content}`]);
}
