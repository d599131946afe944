// Playwright's own bundle of utilities, untyped: the suite takes from it only the media-type table by which Playwright
// declares a file part's type (src/client/form.ts, encodeForm).
declare module 'playwright-core/lib/utilsBundle' {
  const utils: { mime: { getType(path: string): string | null } };
  export default utils;
}
