// `bijotel recover`: every deleted or earlier version of a row the files still hold, proven or not.
// Loaded only when the command runs.
import { printable } from '../../../shared/printable'
import { AuditError } from '../../base/errors'
import { openEvidence } from '../../chain/evidence-files'
import { writeCaseFile } from '../../recovery/case-file'
import { recoverPath } from '../../recovery/verdict'
import { keyInfo, parseSecrets } from '../../chain/keys'
import { parse, requireString } from '../args'
import type { Run } from '../command'
import { plural, toJson } from '../format'
import { recoveredLines } from './recovered-text'
import { EXIT } from './recover-info'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    ...SECRET_OPTIONS,
  })
  const db = requireString(values, 'db')
  const out = values['out']
  if (out !== undefined && (typeof out !== 'string' || out === ''))
    throw new AuditError('bad_argument', '--out needs a folder')
  // DB missing, not a regular file: the open step's own refusals and exit codes, made on a
  // descriptor (src/main/chain/evidence-files.ts); the search below opens and checks it again.
  openEvidence(db).close()
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: true }))
  const result = await recoverPath(db, keys)
  if (!result.summary.searched) throw new AuditError('corrupt', `${db}: ${result.summary.note}`)
  const infos = keys.map(keyInfo)
  if (typeof out === 'string') {
    const written = writeCaseFile(out, db, [
      ...result.rows.map((r) => ({ ...r, uncommitted_only: false })),
      ...result.uncommitted.map((r) => ({ ...r, uncommitted_only: true })),
    ])
    io.err(`case file written to ${printable(out)} (${plural(written.length, 'file')})\n`)
  }
  const s = result.summary
  if (values['json']) {
    io.out(toJson({ ...result, keys: infos }) + '\n')
  } else {
    const lines = [
      `Searched ${plural(s.scanned.db_pages, 'database page')}, ${plural(s.scanned.wal_frames, 'WAL frame')} ` +
        `(${plural(s.scanned.freelist_pages, 'freelist page')})` +
        (s.scanned.journal_pages ? `, ${plural(s.scanned.journal_pages, 'rollback journal image')}` : '') +
        `; ${plural(s.copies_of_live, 'copy', 'copies')} of live rows not listed.`,
    ]
    if (result.rows.length > 0)
      lines.push(`Recovered rows (${result.rows.length}):`, ...recoveredLines(result.rows, infos))
    if (result.uncommitted.length > 0)
      lines.push(
        `Rows not known to have been committed, never findings: a transaction in flight or rolled back leaves rows where these are; the notices say what else could (${result.uncommitted.length}):`,
        ...recoveredLines(result.uncommitted, infos),
      )
    lines.push(`Recovery: ${s.note}`)
    io.out(printable(lines.join('\n'), '\n') + '\n')
  }
  // Only rows a key proves and sealed links place are findings (issue 39): unplaced and before-live rows are not.
  if (result.rows.some((r) => r.key_index !== null && (r.status === 'deleted' || r.status === 'superseded')))
    return EXIT.proven
  return result.rows.length + result.uncommitted.length > 0 ? EXIT.unproven : EXIT.none
}
