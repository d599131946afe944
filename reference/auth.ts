import type { FastifyRequest } from 'fastify';
import type { Context } from './context.ts';
import { ApiError, forbidden, unauthorized } from './errors.ts';
import type { Token } from './world.ts';

const BEARER = /^Bearer +(\S+)$/i;

/** The token of a request: 401 when it is missing, malformed, unknown or expired. */
export function authenticate(request: FastifyRequest, ctx: Context): Token {
  // A server that reads the field by its name as written (RFC 9110 §5.1 makes it case-insensitive) misses `authorization`.
  const header = ctx.policy.authorizationNameExact && !request.raw.rawHeaders.includes('Authorization') ? undefined : request.headers.authorization;
  if (header === undefined) throw unauthorized('send Authorization: Bearer <token>');
  let value = (ctx.policy.bearerSchemeExact ? /^Bearer +(\S+)$/ : BEARER).exec(header)?.[1];
  if (value === undefined && !ctx.policy.requireBearerScheme) value = header.trim().split(/\s+/).pop();
  if (value === undefined) throw unauthorized('malformed Authorization header; expected Bearer <token>');
  const token = ctx.world.token(value);
  if (!token || (token.expiresAt !== undefined && token.expiresAt <= ctx.clock.now())) {
    throw unauthorized('unknown or expired token');
  }
  if (token.kind === 'pit' && !ctx.policy.acceptPrivateIntegrationTokens) throw unauthorized('private integration tokens are not accepted');
  return token;
}

/** A Sub-Account token of this location (or an Agency token of its company) holding the scope. */
export function authorize(token: Token, ctx: Context, locationId: string, scope: string): void {
  if (!token.scopes.includes(scope)) throw new ApiError(403, 'missing_scope', `the token lacks the scope ${scope}`);
  if (ctx.policy.anyLocationFor.has(scope) || (token.refreshed && ctx.policy.refreshedTokensReachAnyLocation)) return;
  if (token.locationToken && ctx.policy.locationTokensReachAnyLocationFor.has(scope)) return;
  const location = ctx.world.location(locationId);
  const owns = token.owner === 'location' ? token.locationId === locationId : location?.companyId === token.companyId;
  if (!owns) throw forbidden(`the token does not give access to location ${locationId}`);
}
