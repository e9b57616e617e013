// `bijotel inspect`: the reference's inspect_cmd (§4.10) and, given a key, the row's verification.
import { printable } from '../../../shared/printable'
import { existsSync } from 'node:fs'
import { casEntry, findRow, findRowToCheck, inspectText, checkInspectedRow } from '../../browse/inspect'
import { readChain } from '../../chain/source/open-source'
import { AuditError } from '../../base/errors'
import { parseSecrets } from '../../chain/keys'
import { parse, requireString, UsageError } from '../args'
import type { Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { EXIT } from './inspect-info'

export const run: Run = async (argv, io) => {
  const { values, positionals } = parse(argv, { db: { type: 'string' }, ...SECRET_OPTIONS }, true)
  const db = requireString(values, 'db')
  if (positionals.length !== 1) throw new UsageError('the following arguments are required: id')
  const id = positionals[0]!
  if (!existsSync(db)) throw new AuditError('db_missing', `DB not found: ${db}`)
  // Only keys given explicitly: the reference's inspect reads none, and its output must not change
  // because BIJOTEL_HMAC_SECRET happens to be set.
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: false }))
  // Read whole before anything is written: a pass the direct reader gives up on is redone by SQLite.
  const shown = await readChain(
    db,
    async (src) => {
      // With a key the verification is printed: the rows carrying a span_id are counted for it, and
      // the row before it is looked up first (findRowToCheck says why).
      const byId = keys.length > 0 && !/^[0-9]+$/.test(id) ? { rows: 0 } : undefined
      const found =
        keys.length > 0
          ? await findRowToCheck(src, id, byId)
          : await findRow(src, id).then((row) => row && { row, predecessor: undefined })
      if (!found) return null
      const { row, predecessor } = found
      const sem = row.semantic_body_hash
      const cas = typeof sem === 'string' && sem !== '' ? await casEntry(src, sem) : null
      const check =
        keys.length > 0
          ? { result: await checkInspectedRow(src, row, keys, predecessor), keys, ...(byId ? { byId } : {}) }
          : null
      src.assertUnchanged()
      return { text: inspectText(row, cas, check), broken: check !== null && !check.result.verifies }
    },
    { env: io.env },
  )
  if (!shown) {
    io.err(`No span found for: ${printable(id)}\n`)
    return EXIT.notFound
  }
  // The row's text is the writer's: shown as data (base/visible-text.ts), its line breaks kept.
  io.out(printable(shown.text, '\n'))
  return shown.broken ? EXIT.broken : EXIT.ok
}
