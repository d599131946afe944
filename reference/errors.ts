/**
 * A refusal: its default status and a code naming the reason. The style's `refusal` (policy.ts) decides the status
 * and body a client sees, so the routes name reasons and each style answers them its own way.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, 'bad_request', message);
export const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
/** A body or form that does not match its schema. */
export const invalidBody = (message: string) => new ApiError(400, 'invalid_body', message);

/** Refuses a request body holding one of `refused` (a policy's refusedFields). */
export function refuseFields(body: Record<string, unknown>, refused: ReadonlySet<string>): void {
  const found = Object.keys(body).find((name) => refused.has(name));
  if (found !== undefined) throw invalidBody(`unknown field ${found}`);
}

/** A refusal of a token endpoint (RFC 6749 §5.2 error codes). */
export class OAuthError extends ApiError {
  readonly oauth = true;
}
