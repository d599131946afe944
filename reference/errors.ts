/** A refusal with its status; the error handler turns it into `{statusCode, error, message}`. */
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

/** Refuses a request body holding one of `refused` (a policy's refusedFields). */
export function refuseFields(body: Record<string, unknown>, refused: ReadonlySet<string>): void {
  const found = Object.keys(body).find((name) => refused.has(name));
  if (found !== undefined) throw badRequest(`unknown field ${found}`);
}
