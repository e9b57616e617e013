// `bijotel stats`: the reference's stats_cmd (§4.10) over streamed rows.
import { existsSync } from 'node:fs'
import { chainStats, statsText } from '../../browse/stats'
import { openRowSource } from '../../chain/row-stream'
import { AuditError } from '../../errors'
import { parse, requireString } from '../args'
import type { Run } from '../command'
import { throttle } from '../io'

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, { db: { type: 'string' } })
  const db = requireString(values, 'db')
  if (!existsSync(db)) throw new AuditError('db_missing', `DB not found: ${db}`)
  const src = await openRowSource(db, { env: io.env })
  try {
    const s = await chainStats(src, {
      onProgress: throttle(250, (d, t) =>
        io.progress(`reading ${Math.floor((100 * d) / Math.max(t, 1))}% (${d} rows)`),
      ),
    })
    io.progress(null)
    io.out(statsText(s))
    return 0
  } finally {
    src.close()
  }
}
