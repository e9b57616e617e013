// The codes a failed contract call carries (`ApiErrorBody.code`), as one runtime list: the
// transports set them, the renderer's HTTP client accepts only these from a response (anything
// else from the wire becomes `internal`, or `not_found` for a 404).

export const API_ERROR_CODES = Object.freeze([
  'bad_request',
  'not_found',
  'no_chain',
  'not_a_chain',
  'forbidden',
  'unavailable',
  'internal',
] as const)

export type ApiErrorCode = (typeof API_ERROR_CODES)[number]

export function isApiErrorCode(v: unknown): v is ApiErrorCode {
  return typeof v === 'string' && (API_ERROR_CODES as readonly string[]).includes(v)
}
