// The report's JSON Schema (schema/integrity-report.schema.json) as the two checks read it:
// report-members.ts (no member the schema does not name) and report-values.ts (no value it does not
// allow). Its nodes are plain objects; its references are all `#/$defs/name` (JSON Schema 2020-12
// §8.2.3.1, a JSON Pointer into this document, RFC 6901).
import schema from '../../../schema/integrity-report.schema.json'

export type SchemaNode = Record<string, unknown>

/** The schema's root node. */
export const SCHEMA_ROOT = schema as unknown as SchemaNode

/** `v` as a schema node (a JSON object), or null. */
export function asNode(v: unknown): SchemaNode | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as SchemaNode) : null
}

const resolved = new Map<string, SchemaNode | null>()

/**
 * The node a `#/…` reference points to in this schema, or null (another kind of reference). Looked
 * up once a reference: the checks follow one for every value under it (every finding's seqs).
 */
export function resolveRef(ref: string): SchemaNode | null {
  const known = resolved.get(ref)
  if (known !== undefined) return known
  let at: unknown = null
  if (ref.startsWith('#/')) {
    at = SCHEMA_ROOT
    for (const part of ref.slice(2).split('/')) at = asNode(at)?.[part]
  }
  const node = asNode(at)
  // The schema is fixed, so its references are too few to bound; a crafted `$ref` is not read here.
  if (resolved.size < 1024) resolved.set(ref, node)
  return node
}
