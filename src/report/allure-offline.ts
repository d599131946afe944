// Allure's report page loads Google's analytics from the network (plugin-awesome writes it in, with no option to
// leave it out). A conformance report names a team's staging server: opening it must ask nothing of any other host,
// and a machine that reaches no such host must not wait on it to open the report.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Allure's analytics: the script from googletagmanager.com, then the inline one that configures it. */
const ANALYTICS = /<script\b[^>]*\bsrc="https:\/\/www\.googletagmanager\.com\/[^"]*"[^>]*><\/script>\s*<script>\s*window\.dataLayer\b[\s\S]*?<\/script>/g;

/** Takes the analytics out of the Allure report page in `dir` (the browser test sees that no other host is asked). */
export function withoutAnalytics(dir: string): void {
  const file = join(dir, 'index.html');
  writeFileSync(file, readFileSync(file, 'utf8').replace(ANALYTICS, ''));
}
