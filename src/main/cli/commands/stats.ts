// `bijotel stats`: the reference's stats_cmd (§4.10) over streamed rows.
import { existsSync } from 'node:fs'
import { chainStats, statsText } from '../../browse/stats'
import { readChain } from '../../chain/source/open-source'
import { AuditError } from '../../base/errors'
import { parse, requireString } from '../args'
import type { Run } from '../command'
import { throttle } from '../io'
import { printable } from '../../../shared/printable'

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, { db: { type: 'string' } })
  const db = requireString(values, 'db')
  if (!existsSync(db)) throw new AuditError('db_missing', `DB not found: ${db}`)
  const onProgress = throttle(250, (d: number, t: number) =>
    io.progress(`reading ${Math.floor((100 * d) / Math.max(t, 1))}% (${d} rows)`),
  )
  const s = await readChain(db, (src) => chainStats(src, { onProgress }), { env: io.env })
  io.progress(null)
  io.out(printable(statsText(s), '\n'))
  return 0
}
