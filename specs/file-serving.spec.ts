// How uploaded files are served: an SVG must not become a page that runs in the API's origin (SHOULD; an origin of
// the files' own, as storage or a CDN has, may show it as it likes), and
// whether files carry X-Content-Type-Options: nosniff is recorded (INFO). Read within the public hour, so the
// check holds before and after the change of 30 November 2026.
import { offeredUrls } from '../src/checks/discover.ts';
import { expect, observe, requireAccepted, rule, test } from '../src/suite.ts';
import { testFile } from '../src/files/test-file.ts';

const SVG = testFile('drawing.svg', 512);

/** A browser runs an SVG only when it renders it inline as SVG or XML, without a CSP that forbids scripts. */
function notRendered(headers: Record<string, string>): boolean {
  const disposition = headers['content-disposition'] ?? '';
  const policy = headers['content-security-policy'] ?? '';
  const type = (headers['content-type'] ?? '').toLowerCase();
  return (
    /^\s*attachment/i.test(disposition) ||
    /(script-src|default-src)\s+'none'|sandbox/i.test(policy) ||
    !/svg|xml|html/.test(type)
  );
}

test.describe('file serving', () => {
  test(...rule('SVG-NOT-RENDERED', "an uploaded SVG is served as a download, inert, or off the API's origin"), async ({ api, target }) => {
    const reply = await api.upload('upload an SVG', { files: [SVG] });
    requireAccepted(reply, 'the upload of an SVG', 'UPLOAD-EXT-ALLOWED');
    const [url] = offeredUrls(reply);
    test.skip(url === undefined, 'prerequisite failed: the upload offered no URL (judged by UPLOAD-URL-PER-FILE)');
    const read = await api.anonymous('read the SVG', url);
    expect(read).toServeBytesOf(SVG);
    const { 'content-type': type, 'content-disposition': disposition, 'content-security-policy': policy } = read.headers;
    // Where the bytes finally came from, after any redirect.
    const apiOrigin = new URL(target.baseUrl).origin;
    const offOrigin = new URL(read.url).origin !== apiOrigin;
    expect(
      offOrigin || notRendered(read.headers),
      `served from the API's origin ${apiOrigin} with Content-Type ${type ?? '(none)'}, Content-Disposition ${disposition ?? '(none)'}, Content-Security-Policy ${policy ?? '(none)'}: ` +
        'a browser would render this SVG and run its scripts in the API\'s origin; serve it as an attachment, with a CSP forbidding scripts, as a non-rendering type, or from an origin of its own',
    ).toBe(true);
  });

  test(...rule('FILE-NOSNIFF', 'whether served files carry nosniff is observed'), async ({ api }) => {
    const file = testFile('sniff.txt', 256);
    const reply = await api.upload('upload a text file', { files: [file] });
    requireAccepted(reply, 'the upload of a text file', 'UPLOAD-ACCEPTED');
    const [url] = offeredUrls(reply);
    test.skip(url === undefined, 'prerequisite failed: the upload offered no URL (judged by UPLOAD-URL-PER-FILE)');
    const read = await api.anonymous('read the text file', url);
    observe(`X-Content-Type-Options: ${read.headers['x-content-type-options'] ?? '(absent)'}`);
  });
});
