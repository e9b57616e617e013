// The shape of a report that `report verify` compares (issue 38): the members the comparison reads
// must be of the kind it reads, before any is read. A crafted report (signed or not) with `null` or
// a number where an object stands would otherwise stop the check with "internal error: Cannot read
// properties of null", or worse, pass: a replay check with no `result` and a seq that is no row
// compared "(absent)" with "no such row" and read REPRODUCES. Refused in one line, naming the member.
import { AuditError } from '../base/errors'

type Kind = 'object' | 'array' | 'string' | 'boolean' | 'integer'

function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'an integer' : 'a number'
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`
}

function is(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v)
    case 'array':
      return Array.isArray(v)
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v)
    default:
      return typeof v === kind
  }
}

class Shape {
  constructor(private readonly label: string) {}

  /** `v` at `path` must be of `kind` (or absent, or null, when allowed); returns it. */
  need<T = Record<string, unknown>>(
    v: unknown,
    path: string,
    kind: Kind,
    allow: { absent?: boolean; null?: boolean } = {},
  ): T {
    if ((v === undefined && allow.absent) || (v === null && allow.null) || is(v, kind)) return v as T
    const want =
      kind === 'integer' ? 'an integer' : kind === 'array' || kind === 'object' ? `an ${kind}` : `a ${kind}`
    throw new AuditError(
      'bad_argument',
      `${this.label}: not a report this version can check: ${path} is ${v === undefined ? 'absent' : kindOf(v)}, not ${want}`,
    )
  }
}

/** Throws a one-line AuditError when a member the comparison reads is not of the kind it reads. */
export function requireCheckableReport(doc: Record<string, unknown>, label: string): void {
  const s = new Shape(label)
  const v = s.need(doc['verification'], 'verification', 'object', { null: true, absent: true })
  if (v) {
    s.need(v['keys'], 'verification.keys', 'array')
    s.need(v['verdict'], 'verification.verdict', 'object')
  }
  const integrity = s.need(doc['integrity'], 'integrity', 'object')
  s.need(integrity['report'], 'integrity.report', 'object')
  s.need(integrity['window_requested'], 'integrity.window_requested', 'integer', { absent: true })
  const replays = s.need<unknown[]>(doc['replay_checks'], 'replay_checks', 'array', { absent: true })
  replays?.forEach((r, i) => {
    const check = s.need(r, `replay_checks[${i}]`, 'object')
    s.need(check['seq'], `replay_checks[${i}].seq`, 'integer')
    const result = s.need(check['result'], `replay_checks[${i}].result`, 'object')
    s.need(result['replay_hash'], `replay_checks[${i}].result.replay_hash`, 'string')
  })
  const coverage = s.need(doc['coverage'], 'coverage', 'object', { absent: true })
  if (coverage) {
    const statement = s.need(coverage['statement'], 'coverage.statement', 'object')
    s.need(statement['db'], 'coverage.statement.db', 'object')
    s.need(statement['wal'], 'coverage.statement.wal', 'object', { null: true, absent: true })
  }
}
