/** Content types by extension for serving files (the contract only lists the extensions). */
const TYPES: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', svg: 'image/svg+xml',
  heic: 'image/heic', ai: 'application/postscript',
  mp4: 'video/mp4', mpeg: 'video/mpeg', '3gp': 'video/3gpp',
  mp3: 'audio/mpeg', wav: 'audio/wav', wave: 'audio/wav', aiff: 'audio/aiff', aif: 'audio/aiff', aifc: 'audio/aiff',
  gsm: 'audio/gsm', ulaw: 'audio/basic', ogg: 'audio/ogg', aac: 'audio/aac', m4a: 'audio/mp4', amr: 'audio/amr',
  pdf: 'application/pdf', doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  txt: 'text/plain; charset=utf-8', csv: 'text/csv; charset=utf-8', xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text', zip: 'application/zip', rar: 'application/vnd.rar',
  vcf: 'text/vcard', vcard: 'text/vcard', ics: 'text/calendar',
};

export function contentTypeOf(extension: string): string {
  return TYPES[extension] ?? 'application/octet-stream';
}
