/**
 * The closed set of Status reasons and the HTTP code of each, as the reference maps them.
 * Kept as data, apart from {@link StatusError}, so an adapter can map codes without the class.
 * @module
 */

/** HTTP status code for every reason a Status may carry. */
export const statusCodes = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
} as const satisfies Record<string, number>;

/** A reason a Status may carry. */
export type StatusReason = keyof typeof statusCodes;

/** Every reason, in code order. */
export const statusReasons = Object.keys(statusCodes) as readonly StatusReason[];

/** True when `value` is one of the {@link StatusReason}s. */
export function isStatusReason(value: unknown): value is StatusReason {
  return typeof value === "string" && Object.hasOwn(statusCodes, value);
}

/** The HTTP code of a reason. */
export function httpCodeOf(reason: StatusReason): number {
  return statusCodes[reason];
}
