// `bijotel export`: the reference's export_cmd (§4.6) — its checks in its order, its output lines and
// its exit codes — over the streamed, verified writer of ../../export/write-export.ts.
import { printable } from '../../../shared/printable'
import { existsSync } from 'node:fs'
import { AuditError } from '../../base/errors'
import { loadSigningKey } from '../../export/sign-key'
import { writeExport } from '../../export/write-export'
import { keyInfo, parseSecrets } from '../../chain/keys'
import { parse, RANGE_OPTIONS, rangeFrom, requireString } from '../args'
import { HintedError, type Run } from '../command'
import { throttle } from '../io'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { EXIT } from './export-info'
import { pyPathStr } from '../../python/pypath'
import { boundaryLine, NO_SECRET_HINT, verdictText } from './verify'

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    output: { type: 'string', short: 'o' },
    'sign-key': { type: 'string' },
    ...SECRET_OPTIONS,
    ...RANGE_OPTIONS,
  })
  const db = requireString(values, 'db')
  const output = requireString(values, 'output')
  // The reference's order (§4.6): the secret, the DB, the signing key's file, the range flags.
  const inputs = await secretInputsFrom(values, io, { useEnv: true })
  if (inputs.length === 0)
    throw new HintedError(
      'no_secret',
      'HMAC secret required (--secret-hex or BIJOTEL_HMAC_SECRET).',
      NO_SECRET_HINT,
    )
  const keys = parseSecrets(inputs)
  if (!existsSync(db)) throw new AuditError('db_missing', `chain DB not found: ${db}`)
  const signPath = typeof values['sign-key'] === 'string' ? values['sign-key'] : null
  if (signPath !== null && !existsSync(signPath))
    throw new AuditError('bad_argument', `--sign-key path not found: ${signPath}`)
  const range = rangeFrom(values)
  const shown = printable(pyPathStr(output))
  let phase = ''
  const bar = throttle(250, (d, t) =>
    io.progress(`${phase} ${Math.floor((100 * d) / Math.max(t, 1))}% (${d}/${t} rows)`),
  )
  const draw = (p: string, d: number, t: number): void => {
    phase = p
    bar(d, t)
  }
  try {
    const signKey = signPath === null ? undefined : loadSigningKey(signPath)
    const result = await writeExport({
      source: { path: db },
      output,
      keys,
      ...(range ? { range } : {}),
      ...(signKey ? { signKey } : {}),
      env: io.env,
      onProgress: (p, d, t) => draw(p, d, t),
    })
    io.progress(null)
    if (!result.written) {
      const text = verdictText(result.verdict, keys.map(keyInfo), range !== undefined)
      io.err(text.err)
      io.out(text.out)
      io.err(`ERROR: export refused: the rows to export do not verify; nothing was written to ${shown}\n`)
      return EXIT.broken
    }
    const lines = [
      `Exported chain to ${shown}`,
      `  format:        ${result.format}`,
      `  entries_count: ${result.entries_count}`,
      `  head_hash:     ${result.head_hash.slice(0, 16)}...`,
      `  size:          ${result.size.toLocaleString('en-US')} bytes`,
    ]
    if (result.signed_by !== null) lines.push(`  signed by:     ${result.signed_by} (Ed25519)`)
    io.out(lines.join('\n') + '\n')
    // stdout is the reference's lines only (issue 36). Where the first exported row's predecessor is
    // not in the file, its stored prev_hash was trusted as the boundary: said on stderr, because an
    // export of a trimmed chain must not look like one that starts at a checked link.
    const v = result.verdict
    if (v.boundary?.kind === 'trusted' && v.first_seq !== null && v.first_seq > 1)
      io.err(`${boundaryLine(v.boundary)}\n`)
    return EXIT.written
  } catch (e) {
    io.progress(null)
    if (!(e instanceof AuditError)) throw e
    io.err(`ERROR: export failed: ${printable(e.message)}\n`)
    return EXIT.error
  }
}
