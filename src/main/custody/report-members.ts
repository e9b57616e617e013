// Every member of a report must be one its schema names (schema/integrity-report.schema.json, where
// every object is `additionalProperties: false`). `report verify` compares the members it knows and
// the page draws only those, so a member it does not know would be read by a person opening the
// JSON (`verification.verdict.auditor_note: "cleared"`) yet vouched for by nobody: inside the
// signed part the check's "OK" would seem to cover it, and inside the `signature` block — which the
// signature does not cover (sign.ts: JCS of the report without it) — it is text anyone can add to a
// signed report. So a report holding a member its schema does not name, at any depth, is refused
// in one line naming the member's path, before its signature or its fields are looked at.
import { asNode, resolveRef, SCHEMA_ROOT as ROOT, type SchemaNode as Node } from './report-schema'
import { AuditError } from '../base/errors'

/** The schema nodes a value may be checked against: references followed, alternatives flattened. */
function leaves(nodes: readonly unknown[], out: Node[] = [], depth = 0): Node[] {
  for (const raw of nodes) {
    const n = asNode(raw)
    if (n === null || depth > 32) continue
    if (typeof n['$ref'] === 'string') {
      const target = resolveRef(n['$ref'])
      if (target) leaves([target], out, depth + 1)
    }
    for (const k of ['oneOf', 'anyOf', 'allOf'])
      if (Array.isArray(n[k])) leaves(n[k] as unknown[], out, depth + 1)
    if (!out.includes(n)) out.push(n)
  }
  return out
}

/** Whether a schema node says anything of an object's members (else it leaves them open). */
const speaksOfMembers = (n: Node): boolean => 'properties' in n || 'additionalProperties' in n

/** The path of the first member no schema alternative names, or null. */
function firstUnknown(value: unknown, nodes: readonly unknown[], path: string): string | null {
  if (Array.isArray(value)) {
    const items = leaves(nodes)
      .map((n) => n['items'])
      .filter((x) => x !== undefined)
    if (items.length === 0) return null
    for (let i = 0; i < value.length; i++) {
      const hit = firstUnknown(value[i], items, `${path}[${i}]`)
      if (hit !== null) return hit
    }
    return null
  }
  const obj = asNode(value)
  if (obj === null) return null
  const ls = leaves(nodes).filter(speaksOfMembers)
  if (ls.length === 0) return null
  for (const name of Object.keys(obj)) {
    const at = path === '' ? name : `${path}.${name}`
    // Own members only: a member named `__proto__` or `constructor` is not named by the schema.
    const named = ls
      .map((n) => asNode(n['properties']))
      .filter((p): p is Node => p !== null && Object.hasOwn(p, name))
      .map((p) => p[name])
    const open = ls.map((n) => n['additionalProperties']).filter((x) => x !== false)
    if (named.length === 0 && open.length === 0) return at
    const sub = [...named, ...open.filter((x) => asNode(x) !== null)]
    const hit = firstUnknown(obj[name], sub, at)
    if (hit !== null) return hit
  }
  return null
}

/** Throws a one-line AuditError naming the first member of `doc` its schema does not name. */
export function requireKnownMembers(doc: Record<string, unknown>, label: string): void {
  const at = firstUnknown(doc, [ROOT], '')
  if (at === null) return
  const inSignature = at.startsWith('signature.')
  throw new AuditError(
    'bad_argument',
    `${label}: the report holds a member its schema does not name: ${JSON.stringify(at).slice(0, 120)}` +
      (inSignature
        ? ' (inside the signature block, which the signature does not cover: text anyone can add)'
        : ' (nothing checks it, yet a reader of the file would read it)'),
  )
}
