// Span → canonical dict, as Python BIJOTEL's `span_to_canonical_dict` / `span_to_semantic_dict`
// (reference §2.1–2.3). The dict is then JCS-encoded (./jcs.ts) and hashed.
import type { HrTime } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { sha256Hex } from '../chain/seal'
import { canonicalBytes } from '../chain/jcs'
import { pyJsonLoads } from '../python/pyformat'

/** Attributes holding JSON text that Python parses before sealing (§2.2). */
export const JSON_STRINGIFIED_ATTRS: ReadonlySet<string> = new Set([
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.tool.definitions',
])

/** Top-level keys left out of the semantic (input-only) dict (§2.3). */
export const SEMANTIC_EXCLUDE_TOP_LEVEL: ReadonlySet<string> = new Set([
  'start_time_ns',
  'end_time_ns',
  'status_code',
  'status_description',
])

/** Attribute keys left out of the semantic dict (§2.3, newest reference version incl. the v1.41 keys). */
export const SEMANTIC_EXCLUDE_ATTRS: ReadonlySet<string> = new Set([
  'gen_ai.output.messages',
  'gen_ai.response.id',
  'gen_ai.response.model',
  'gen_ai.response.finish_reasons',
  'gen_ai.response.finish_reason',
  'gen_ai.response.time_to_first_chunk',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.total_tokens',
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_creation.input_tokens',
  'gen_ai.usage.reasoning.output_tokens',
])

/** OTel SpanKind / SpanStatusCode numbers → the enum member names Python seals. */
const KIND_NAMES = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const
const STATUS_NAMES = ['UNSET', 'OK', 'ERROR'] as const

/**
 * The fields of a span that reach the canonical body, independent of any SDK. Times are integer
 * nanoseconds since the epoch (BigInt: they exceed 2^53).
 */
export interface SpanRecord {
  name: string
  /** SpanKind name (`CLIENT`…) or OTel number; null/undefined → null. */
  kind?: string | number | null
  attributes?: Record<string, unknown>
  /** `UNSET` | `OK` | `ERROR`, or the OTel number. */
  statusCode?: string | number | null
  statusDescription?: string | null
  startTimeNs?: bigint | null
  endTimeNs?: bigint | null
}

export interface CanonicalDict {
  name: string
  kind: string | null
  attributes: Record<string, unknown>
  status_code: string | null
  status_description: string | null
  start_time_ns: string | null
  end_time_ns: string | null
}

export type SemanticDict = Pick<CanonicalDict, 'name' | 'kind' | 'attributes'>

export function hrTimeToNs(t: HrTime | undefined | null): bigint | null {
  if (!t || !Array.isArray(t) || t.length !== 2) return null
  return BigInt(Math.trunc(t[0])) * 1_000_000_000n + BigInt(Math.round(t[1]))
}

function isReadableSpan(s: SpanRecord | ReadableSpan): s is ReadableSpan {
  return typeof (s as ReadableSpan).spanContext === 'function'
}

/**
 * A ReadableSpan as Python's SDK would present it: kind and status names; a status description only
 * for ERROR (both SDKs drop it otherwise); end time null for a span that has not ended.
 */
export function spanRecordOf(span: SpanRecord | ReadableSpan): SpanRecord {
  if (!isReadableSpan(span)) return span
  const code = span.status?.code ?? 0
  return {
    name: span.name,
    kind: span.kind,
    attributes: { ...(span.attributes ?? {}) },
    statusCode: code,
    statusDescription: code === 2 && typeof span.status?.message === 'string' ? span.status.message : null,
    startTimeNs: hrTimeToNs(span.startTime),
    endTimeNs: span.ended === false ? null : hrTimeToNs(span.endTime),
  }
}

function kindName(k: string | number | null | undefined): string | null {
  if (typeof k === 'number') return KIND_NAMES[k] ?? null
  return typeof k === 'string' ? k : null
}

function statusName(c: string | number | null | undefined): string | null {
  if (typeof c === 'number') return STATUS_NAMES[c] ?? null
  return typeof c === 'string' ? c : null
}

/** Python's `_parse_if_json_attr`: a string value of a JSON-stringified key is `json.loads`-ed, else kept. */
export function parseIfJsonAttr(key: string, value: unknown): unknown {
  if (!JSON_STRINGIFIED_ATTRS.has(key) || typeof value !== 'string') return value
  try {
    return pyJsonLoads(value)
  } catch {
    return value
  }
}

function attributesDict(
  attrs: Record<string, unknown> | undefined,
  exclude: ReadonlySet<string> | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined) continue
    if (exclude && exclude.has(k)) continue
    Object.defineProperty(out, k, {
      value: parseIfJsonAttr(k, v),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

/** The full canonical dict (7 keys; times as decimal strings). */
export function spanToCanonicalDict(span: SpanRecord | ReadableSpan): CanonicalDict {
  const s = spanRecordOf(span)
  return {
    name: s.name,
    kind: kindName(s.kind),
    attributes: attributesDict(s.attributes, null),
    status_code: s.statusCode === undefined ? 'UNSET' : statusName(s.statusCode),
    status_description: s.statusDescription ?? null,
    start_time_ns: s.startTimeNs === null || s.startTimeNs === undefined ? null : s.startTimeNs.toString(),
    end_time_ns: s.endTimeNs === null || s.endTimeNs === undefined ? null : s.endTimeNs.toString(),
  }
}

/** The semantic (input-only) dict: name, kind, attributes minus output/response/usage keys. */
export function spanToSemanticDict(span: SpanRecord | ReadableSpan): SemanticDict {
  const s = spanRecordOf(span)
  return {
    name: s.name,
    kind: kindName(s.kind),
    attributes: attributesDict(s.attributes, SEMANTIC_EXCLUDE_ATTRS),
  }
}

/** The semantic dict derived from an already-built canonical dict (same result, no re-parsing). */
export function semanticOfCanonical(d: CanonicalDict): SemanticDict {
  const attributes: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(d.attributes)) {
    if (!SEMANTIC_EXCLUDE_ATTRS.has(k)) {
      Object.defineProperty(attributes, k, { value: v, enumerable: true, writable: true, configurable: true })
    }
  }
  return { name: d.name, kind: d.kind, attributes }
}

export interface CanonicalSpan {
  dict: CanonicalDict
  body: Buffer
  canonicalHash: string
  semanticBody: Buffer
  semanticBodyHash: string
}

/** Canonical body + hash and semantic body + hash of a span. Throws CanonicalizationError like Python. */
export function canonicalizeSpan(span: SpanRecord | ReadableSpan): CanonicalSpan {
  const dict = spanToCanonicalDict(span)
  const body = canonicalBytes(dict)
  const semanticBody = canonicalBytes(semanticOfCanonical(dict))
  return {
    dict,
    body,
    canonicalHash: sha256Hex(body),
    semanticBody,
    semanticBodyHash: sha256Hex(semanticBody),
  }
}

/** sha256 of the semantic JCS body (`chain.semantic_body_hash`, `cas.body_hash`). */
export function semanticBodyHash(span: SpanRecord | ReadableSpan): string {
  return sha256Hex(canonicalBytes(spanToSemanticDict(span)))
}
