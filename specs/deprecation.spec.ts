// Deprecation of §4.3 rule 4 and §9.3: the old execute path still serves v3, the replacement path
// exists, and what the contract leaves open about both is observed.
import type { Reply } from '../src/client/api.ts';
import { API_VERSION } from '../src/contract/contract.ts';
import { describeErrors, validatorFor } from '../src/contract/schemas.ts';
import { expect, observe, requireAccepted, rule, test } from '../src/suite.ts';

/** Statuses that say a route is not there; every other 5xx is a server error, not a route. */
const ROUTE_MISSING = [404, 405, 501];

const excerpt = (reply: Reply) => reply.text().slice(0, 200);

test.describe('deprecation', () => {
  test(...rule('DEPRECATED-STILL-SERVED', 'the deprecated path answers v3 with the reply of §2.4'), async ({ api }) => {
    const reply = await api.execute('deprecated path, Version v3', { headers: { version: API_VERSION } });
    expect(reply).toBeAcceptance();
    expect(reply.json()).toMatchSchema('execution-response');
  });

  test(...rule('REPLACEMENT-EXISTS', 'the replacement path answers with neither 404, 405, 501 nor a 5xx'), async ({ api }) => {
    const reply = await api.execute('replacement path, deprecated request shape', { path: 'replacement' });
    // Its shapes are not shown, so a 4xx other than 404 or 405 may be a refusal of the old shape by a route that exists.
    expect(ROUTE_MISSING, `the replacement answered ${reply.status}, which says the route is missing: ${excerpt(reply)}`).not.toContain(reply.status);
    expect(reply.status, `the replacement answered a server error: ${excerpt(reply)}`).toBeLessThan(500);
  });

  test(...rule('REPLACEMENT-SAME-SHAPE', 'whether the replacement takes the deprecated shape is observed'), async ({ api }) => {
    const reply = await api.execute('replacement path, deprecated request shape', { path: 'replacement' });
    if (reply.status < 200 || reply.status >= 300) {
      observe(`the replacement refused the deprecated request shape: ${reply.status}`);
      return;
    }
    const validate = validatorFor('execution-response');
    observe(
      validate(reply.json())
        ? `the replacement accepted the deprecated request shape (${reply.status}) and answered the §2.4 shape`
        : `the replacement accepted the deprecated request shape (${reply.status}) but its reply differs from §2.4: ${describeErrors(validate.errors)}`,
    );
  });

  test(...rule('DEPRECATION-HEADERS', 'the Deprecation, Sunset and Link headers of the deprecated path are recorded'), async ({ api, target }) => {
    const reply = await api.execute('deprecated path, its deprecation headers');
    requireAccepted(reply, 'a valid execution on the deprecated path', 'DEPRECATED-STILL-SERVED');
    // The base address changes with every reference server; the report keeps only what the server chose.
    const shown = (name: string) => reply.headers[name]?.replaceAll(target.baseUrl, '{base_url}') ?? '(absent)';
    observe(['deprecation', 'sunset', 'link'].map((name) => `${name}: ${shown(name)}`).join('; '));
  });
});
