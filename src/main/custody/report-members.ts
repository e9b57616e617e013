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

/**
 * What a list of schema alternatives says of a value's parts, worked out once a list: the walk meets
 * the same lists for every item of an array (every finding), and working them out again for each
 * allocated most of what it did (a 54 MB report of 390,000 findings: seconds of garbage collection).
 * The lists handed down are the ones kept here, so the next item finds them by identity.
 */
interface Plan {
  /** The alternatives for an array's items (empty: items left open). */
  items: unknown[]
  /** The alternatives that speak of an object's members (empty: members left open). */
  members: Node[]
  /** Per member name: the alternatives for its value, or null when no alternative names it. */
  byName: Map<string, unknown[] | null>
}

const plans = new WeakMap<readonly unknown[], Plan>()

function planOf(nodes: readonly unknown[]): Plan {
  let p = plans.get(nodes)
  if (!p) {
    const ls = leaves(nodes)
    p = {
      items: ls.map((n) => n['items']).filter((x) => x !== undefined),
      members: ls.filter(speaksOfMembers),
      byName: new Map(),
    }
    plans.set(nodes, p)
  }
  return p
}

function subOf(p: Plan, name: string): unknown[] | null {
  let sub = p.byName.get(name)
  if (sub === undefined) {
    // Own members only: a member named `__proto__` or `constructor` is not named by the schema.
    const named = p.members
      .map((n) => asNode(n['properties']))
      .filter((q): q is Node => q !== null && Object.hasOwn(q, name))
      .map((q) => q[name])
    const open = p.members.map((n) => n['additionalProperties']).filter((x) => x !== false)
    sub =
      named.length === 0 && open.length === 0 ? null : [...named, ...open.filter((x) => asNode(x) !== null)]
    // Names are the report's: a crafted one with a million member names must not grow this forever.
    if (p.byName.size < 256) p.byName.set(name, sub)
  }
  return sub
}

/** The path of the first member no schema alternative names, or null (`stack`: the path so far). */
function firstUnknown(value: unknown, nodes: readonly unknown[], stack: (string | number)[]): string | null {
  if (Array.isArray(value)) {
    const items = planOf(nodes).items
    if (items.length === 0) return null
    for (let i = 0; i < value.length; i++) {
      stack.push(i)
      const hit = firstUnknown(value[i], items, stack)
      stack.pop()
      if (hit !== null) return hit
    }
    return null
  }
  const obj = asNode(value)
  if (obj === null) return null
  const p = planOf(nodes)
  if (p.members.length === 0) return null
  for (const name of Object.keys(obj)) {
    const sub = subOf(p, name)
    stack.push(name)
    const hit = sub === null ? pathText(stack) : firstUnknown(obj[name], sub, stack)
    stack.pop()
    if (hit !== null) return hit
  }
  return null
}

/** A path as the message writes it: `verification.verdict.findings[3].note`. */
function pathText(stack: readonly (string | number)[]): string {
  let out = ''
  for (const k of stack) out += typeof k === 'number' ? `[${k}]` : out === '' ? k : `.${k}`
  return out
}

const ROOTS: readonly unknown[] = [ROOT]

/** Throws a one-line AuditError naming the first member of `doc` its schema does not name. */
export function requireKnownMembers(doc: Record<string, unknown>, label: string): void {
  const at = firstUnknown(doc, ROOTS, [])
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
