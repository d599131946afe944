import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LOCATION_TOKEN_PATH, PLATFORM_LOCATION_TOKEN_PATH, TOKEN_PATH } from '../../src/contract/contract.ts';
import { authenticate } from '../auth.ts';
import type { Context } from '../context.ts';
import { forbidden, OAuthError } from '../errors.ts';
import type { Grant, Owner, Token } from '../world.ts';

const ACCESS_TOKEN_SECONDS = 86_399;

type Form = Record<string, unknown>;

const oauthError = (statusCode: number, error: string, description: string) => new OAuthError(statusCode, error, description);

/** §4.4: POST /oauth/token (authorization code or refresh token) and POST /oauth/location-token (also at the platform's /oauth/locationToken). */
export async function oauthRoutes(app: FastifyInstance, { ctx }: { ctx: Context }): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  /** `by`: the exchange that issues it, where the token keeps a mark of it. */
  const issue = (grant: Omit<Grant, 'clientId'>, withRefresh: Grant | undefined, by: Pick<Token, 'refreshed' | 'locationToken'> = {}) => {
    const accessToken = ctx.ids.next('at', 32);
    ctx.world.addToken({
      value: accessToken,
      kind: 'oauth',
      owner: grant.owner,
      companyId: grant.companyId,
      locationId: grant.locationId,
      scopes: grant.scopes,
      expiresAt: ctx.clock.now() + ACCESS_TOKEN_SECONDS * 1000,
      ...by,
    });
    let refreshToken: string | undefined;
    if (withRefresh) {
      refreshToken = ctx.ids.next('rt', 32);
      ctx.world.addRefreshToken(refreshToken, withRefresh);
    }
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: grant.scopes.join(' '),
      userType: userType(grant.owner),
      companyId: grant.companyId,
      ...(grant.locationId ? { locationId: grant.locationId } : {}),
    };
  };

  app.post<{ Body: Form }>(TOKEN_PATH, { config: { version: 'required' } }, async (request) => {
    const form = request.body ?? {};
    const field = (name: string) => (typeof form[name] === 'string' && form[name] !== '' ? (form[name] as string) : undefined);
    const clientId = field('client_id');
    const app = clientId === undefined ? undefined : ctx.world.app(clientId);
    const grantType = field('grant_type');
    const secretChecked = grantType !== 'refresh_token' || ctx.policy.refreshChecksClientSecret;
    if (!app || (secretChecked && (app.clientSecret === undefined || app.clientSecret !== field('client_secret')))) {
      throw oauthError(401, 'invalid_client', 'unknown client_id or wrong client_secret');
    }
    let grant: Grant | undefined;
    let refreshToken: string | undefined;
    if (grantType === 'authorization_code') {
      const code = field('code');
      if (code === undefined) throw oauthError(400, 'invalid_request', 'code is required');
      grant = ctx.world.takeCode(code);
    } else if (grantType === 'refresh_token') {
      refreshToken = field('refresh_token');
      if (refreshToken === undefined) throw oauthError(400, 'invalid_request', 'refresh_token is required');
      grant = ctx.policy.rotateRefreshTokens ? ctx.world.takeRefreshToken(refreshToken) : ctx.world.refreshGrant(refreshToken);
      if (!grant && !ctx.policy.refreshChecksToken) grant = ctx.world.seedGrantOf(app.clientId);
    } else {
      throw oauthError(400, 'unsupported_grant_type', 'grant_type is authorization_code or refresh_token');
    }
    if (!grant || grant.clientId !== app.clientId) throw oauthError(400, 'invalid_grant', 'the code or refresh token is unknown, used or of another client');
    if (refreshToken === undefined) return issue(grant, grant);
    const renewed = { ...grant, scopes: ctx.policy.refreshedScopes(grant.scopes) };
    return ctx.policy.rotateRefreshTokens ? issue(renewed, grant, { refreshed: true }) : { ...issue(renewed, undefined, { refreshed: true }), refresh_token: refreshToken };
  });

  const locationToken = async (request: FastifyRequest<{ Body: Form }>) => {
    const token = authenticate(request, ctx);
    if (token.owner !== 'company') throw forbidden('an Agency access token is required');
    const form = request.body ?? {};
    const { companyId, locationId } = form;
    if (typeof companyId !== 'string' || typeof locationId !== 'string') {
      throw oauthError(400, 'invalid_request', 'companyId and locationId are required');
    }
    if (companyId !== token.companyId || ctx.world.location(locationId)?.companyId !== companyId) {
      throw forbidden(`location ${locationId} is not in the token's company`);
    }
    const issuedFor = ctx.policy.locationTokenFor(locationId, ctx.world.locationsOf(companyId));
    if (ctx.policy.locationTokenRevokesEarlier) ctx.world.revokeTokens((earlier) => Boolean(earlier.locationToken) && earlier.locationId === issuedFor);
    return issue({ owner: 'location', companyId, locationId: issuedFor, scopes: token.scopes }, undefined, { locationToken: true });
  };
  // The contract's path, and the one the platform's SDK sends (oauth.getLocationAccessToken).
  for (const path of [LOCATION_TOKEN_PATH, PLATFORM_LOCATION_TOKEN_PATH]) app.post<{ Body: Form }>(path, { config: { version: 'required' } }, locationToken);
}

function userType(owner: Owner): string {
  return owner === 'location' ? 'Location' : 'Company';
}
