// Every value of a report must be of the kind and form its schema gives it
// (schema/integrity-report.schema.json): report-members.ts refuses a member the schema does not
// name, and this refuses a named member whose value the schema does not allow. `report verify`
// shows some members without re-running them (`generated_at`, `tool`: "INFO") and the page draws
// them as written, so a signed report reading `generated_at: "yesterday"`, `tool.name: "Official
// Court Tool"` or `tool: null` verified "OK … signature valid", the page and the terminal showing
// text no program of this name writes. The keywords the schema uses are the ones applied here, as
// JSON Schema 2020-12 defines them (type, const, enum, pattern, minLength in code points, minimum,
// maximum, minItems, items, properties, oneOf/anyOf/allOf, $ref into $defs). `required` is applied
// to a report of this tool's own schema version: an older report (1.0, 1.1) lacks members added
// since, and an absent member is shown as absent, never as a value.
import { asNode, resolveRef, SCHEMA_ROOT as ROOT, type SchemaNode as Node } from './report-schema'
import { REPORT_SCHEMA_VERSION } from '../../shared/report-types'
import { utcInstantMs } from '../base/calendar'
import { AuditError } from '../base/errors'

function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number'
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`
}

function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case 'null':
      return v === null
    case 'array':
      return Array.isArray(v)
    case 'object':
      return asNode(v) !== null
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v)
    case 'number':
      return typeof v === 'number' && Number.isFinite(v)
    default:
      return typeof v === t
  }
}

function anyType(v: unknown, types: unknown): boolean {
  return Array.isArray(types) && types.some((t) => typeof t === 'string' && hasType(v, t))
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true
  // Two primitives are the same only when ===: JSON text is compared for objects and arrays alone.
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The value as a short piece of JSON for the one-line message. */
function shown(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v)
  return s.length > 60 ? `${s.slice(0, 60)}…` : s
}

interface Offence {
  path: string
  why: string
}

const INSTANT = resolveRef('#/$defs/isoInstant')

/**
 * An instant the pattern admits must also be one on the calendar: `2026-13-45T25:61:61Z` matches
 * `isoInstant`'s pattern, and the page would show it as when the report was written
 * (../base/calendar.ts).
 */
function realInstant(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(s)
  if (!m) return false
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number]
  return utcInstantMs(y, mo, d, h, mi, se) !== null
}

const patterns = new Map<string, RegExp>()
function regexOf(p: string): RegExp {
  let r = patterns.get(p)
  if (!r) patterns.set(p, (r = new RegExp(p, 'u')))
  return r
}

/**
 * The path of a value as the messages write it (`verification.verdict.findings[3].kind`): built from
 * the walk's stack only when a value is refused. Built for every value, its strings were most of what
 * the walk allocated (a 54 MB report of 390,000 findings: seconds of garbage collection).
 */
function pathText(stack: readonly (string | number)[], name?: string): string {
  let out = ''
  for (const k of stack) out += typeof k === 'number' ? `[${k}]` : out === '' ? k : `.${k}`
  if (name !== undefined) out += out === '' ? name : `.${name}`
  return out
}

class Walk {
  /** The members and items from the report down to the value being checked. */
  private readonly stack: (string | number)[] = []

  constructor(private readonly required: boolean) {}

  private offence(why: string, name?: string): Offence {
    const path = pathText(this.stack, name)
    return { path: path === '' ? '(the report)' : path, why }
  }

  check(v: unknown, node: Node, depth = 0): Offence | null {
    if (depth > 64) return null
    if (typeof node['$ref'] === 'string') {
      const target = resolveRef(node['$ref'])
      const o = target && this.check(v, target, depth + 1)
      if (o) return o
    }
    for (const k of ['oneOf', 'anyOf'] as const) {
      const alts = node[k]
      if (!Array.isArray(alts)) continue
      const offences = alts.map((a) => (asNode(a) ? this.check(v, a as Node, depth + 1) : null))
      if (offences.some((o) => o === null)) continue
      // The alternative the value reached deepest in says best what is wrong with it.
      return offences.reduce((a, b) => ((b?.path.length ?? 0) > (a?.path.length ?? 0) ? b : a))
    }
    if (Array.isArray(node['allOf']))
      for (const a of node['allOf'] as unknown[]) {
        const o = asNode(a) && this.check(v, a as Node, depth + 1)
        if (o) return o
      }
    const type = node['type']
    // One type (most of the schema's): checked without an array a value.
    if (type !== undefined && !(typeof type === 'string' ? hasType(v, type) : anyType(v, type))) {
      const types = Array.isArray(type) ? (type as string[]) : [type as string]
      return this.offence(`is ${kindOf(v)}, not ${types.map((t) => `${t}`).join(' or ')}`)
    }
    if ('const' in node && !same(v, node['const']))
      return this.offence(`is ${shown(v)}, not ${shown(node['const'])}`)
    if (Array.isArray(node['enum']) && !(node['enum'] as unknown[]).some((e) => same(v, e)))
      return this.offence(`is ${shown(v)}, none of ${shown(node['enum'])}`)
    if (typeof v === 'string') {
      if (typeof node['pattern'] === 'string' && !regexOf(node['pattern']).test(v))
        return this.offence(`is ${shown(v)}, not of the form ${node['pattern']}`)
      if (node === INSTANT && !realInstant(v))
        return this.offence(`is ${shown(v)}, not an instant on the calendar`)
      if (typeof node['minLength'] === 'number' && [...v].length < node['minLength'])
        return this.offence(`is ${shown(v)}, shorter than ${node['minLength']}`)
    }
    if (typeof v === 'number') {
      if (typeof node['minimum'] === 'number' && v < node['minimum'])
        return this.offence(`is ${v}, below ${node['minimum']}`)
      if (typeof node['maximum'] === 'number' && v > node['maximum'])
        return this.offence(`is ${v}, above ${node['maximum']}`)
    }
    if (Array.isArray(v)) {
      if (typeof node['minItems'] === 'number' && v.length < node['minItems'])
        return this.offence(`has ${v.length} items, fewer than ${node['minItems']}`)
      const items = asNode(node['items'])
      if (items)
        for (let i = 0; i < v.length; i++) {
          this.stack.push(i)
          const o = this.check(v[i], items, depth + 1)
          this.stack.pop()
          if (o) return o
        }
    }
    const obj = asNode(v)
    if (obj) {
      if (this.required && Array.isArray(node['required']))
        for (const name of node['required'] as string[])
          if (!Object.hasOwn(obj, name)) return this.offence('is absent', name)
      const props = asNode(node['properties'])
      const extra = asNode(node['additionalProperties'])
      for (const name of Object.keys(obj)) {
        const sub = props && Object.hasOwn(props, name) ? asNode(props[name]) : extra
        // A member no schema names is report-members.ts's to refuse, with its own words.
        if (!sub) continue
        this.stack.push(name)
        const o = this.check(obj[name], sub, depth + 1)
        this.stack.pop()
        if (o) return o
      }
    }
    return null
  }
}

/**
 * Throws a one-line AuditError naming the first value of `doc` its schema does not allow (and, for
 * a report of this version, the first member it requires that is absent).
 */
export function requireSchemaValues(doc: Record<string, unknown>, label: string): void {
  const o = new Walk(doc['schema_version'] === REPORT_SCHEMA_VERSION).check(doc, ROOT)
  if (o === null) return
  throw new AuditError(
    'bad_argument',
    `${label}: not a report this version can check: ${o.path.slice(0, 120)} ${o.why} (report schema ${REPORT_SCHEMA_VERSION})`,
  )
}
