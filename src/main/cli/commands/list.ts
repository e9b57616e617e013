// `bijotel list`: the reference's list_cmd (§4.10) with its filters applied before LIMIT/OFFSET.
import { existsSync } from 'node:fs'
import { listSpans, listText } from '../../browse/list'
import { readChain } from '../../chain/source/open-source'
import { AuditError } from '../../base/errors'
import { clampedInt, intArgument, parse, parseInstantNs, requireString } from '../args'
import type { Run } from '../command'
import { printable } from '../../../shared/printable'

function intOption(v: unknown, name: string, dflt: number): number {
  if (typeof v !== 'string') return dflt
  const n = intArgument(`--${name}`, v)
  // Past the doubles' exact range a limit or offset means "all" or "none" alike (far below 0: -1).
  return n < -BigInt(Number.MAX_SAFE_INTEGER) ? -1 : clampedInt(n)
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    blocked: { type: 'boolean' },
    rule: { type: 'string' },
    model: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string' },
    offset: { type: 'string' },
  })
  const db = requireString(values, 'db')
  const limit = intOption(values['limit'], 'limit', 50)
  const offset = intOption(values['offset'], 'offset', 0)
  if (!existsSync(db)) throw new AuditError('db_missing', `DB not found: ${db}`)
  let sinceNs: bigint | undefined
  if (typeof values['since'] === 'string' && values['since'] !== '') {
    if (!/^\d{4}-\d{1,2}-\d{1,2}$/.test(values['since']))
      throw new AuditError('bad_argument', '--since must be YYYY-MM-DD format')
    try {
      sinceNs = parseInstantNs('--since', values['since'], false)
    } catch {
      throw new AuditError('bad_argument', '--since must be YYYY-MM-DD format')
    }
  }
  const filter = {
    ...(values['blocked'] ? { blocked: true } : {}),
    ...(typeof values['rule'] === 'string' && values['rule'] !== '' ? { rule: values['rule'] } : {}),
    ...(typeof values['model'] === 'string' && values['model'] !== '' ? { model: values['model'] } : {}),
    ...(sinceNs !== undefined ? { sinceNs } : {}),
    limit,
    offset,
  }
  const rows = await readChain(db, (src) => listSpans(src, filter), { env: io.env })
  io.out(printable(listText(rows), '\n'))
  return 0
}
