// The entries table's columns read from a row's sealed body: token counts and cost (attributes the
// SDKs record), latency (the span's end − start), status. A value that is absent, or not of the
// type the attribute has (a token count as a string, a start time that is not a decimal integer),
// is missing — null, shown empty — never 0: an auditor must not read "no cost recorded" as "free".
import { attributesOf, isPlainObject } from './body'

export const INPUT_TOKENS = 'gen_ai.usage.input_tokens'
export const OUTPUT_TOKENS = 'gen_ai.usage.output_tokens'
export const COST_USD = 'bijotel.cost_usd'

export interface BodyFields {
  input_tokens: number | null
  output_tokens: number | null
  cost_usd: number | null
  /** end_time_ns − start_time_ns (exact), when both are decimal integer strings (reference §3). */
  latency_ns: bigint | null
  /** The span's status_code when it is a string. */
  status: string | null
}

/** A JSON number as JSON.parse reads it; anything else (strings, booleans, null) is missing. */
function num(v: unknown): number | null {
  return typeof v === 'number' ? v : null
}

const DECIMAL = /^-?\d{1,40}$/

/** A span time: the reference writes decimal strings (JCS's 2^53 limit); a JSON integer is taken too. */
function ns(v: unknown): bigint | null {
  if (typeof v === 'string') return DECIMAL.test(v) ? BigInt(v) : null
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
  return null
}

export function bodyFields(parsed: unknown): BodyFields {
  const attrs = attributesOf(parsed)
  const o = isPlainObject(parsed) ? parsed : {}
  const start = ns(o['start_time_ns'])
  const end = ns(o['end_time_ns'])
  const status = o['status_code']
  return {
    input_tokens: num(attrs[INPUT_TOKENS]),
    output_tokens: num(attrs[OUTPUT_TOKENS]),
    cost_usd: num(attrs[COST_USD]),
    latency_ns: start !== null && end !== null ? end - start : null,
    status: typeof status === 'string' ? status : null,
  }
}
