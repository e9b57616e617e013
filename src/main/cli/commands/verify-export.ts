// `bijotel verify-export`: the header lines, then the verdict, in Python BIJOTEL's words.
import { printable } from '../../../shared/printable'
import { AuditError } from '../../base/errors'
import {
  exportFacts,
  FORMAT_V2,
  readExport,
  verifyExportDoc,
  type ExportFacts,
} from '../../export/verify-export'
import { parseSecrets } from '../../chain/keys'
import { parse, UsageError } from '../args'
import type { Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { EXIT } from './verify-export-info'
import { pyStr } from '../../python/repr'

/** The header as Python prints `inspect_export`'s fields: f-strings, so `str()` (a missing key is None). */
function header(path: string, f: ExportFacts): string {
  // The fields are the export's own (whoever made it chose them): escaped, so a newline in one
  // cannot print a forged "Export VALID" line above the verdict.
  const lines = [
    `File:          ${printable(path)}`,
    `  format:        ${printable(pyStr(f.format))}`,
    `  entries_count: ${printable(pyStr(f.entries_count))}`,
    `  size:          ${f.size.toLocaleString('en-US')} bytes`,
  ]
  if (f.signed_by !== null) lines.push(`  signed by:     ${printable(f.signed_by)} (Ed25519)`)
  return lines.join('\n') + '\n\n'
}

export const run: Run = async (argv, io) => {
  const { values, positionals } = parse(argv, { 'public-key': { type: 'string' }, ...SECRET_OPTIONS }, true)
  if (positionals.length !== 1) throw new UsageError('give exactly one export file')
  const path = positionals[0]!
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: true })).map((k) => k.bytes)
  const publicKey = typeof values['public-key'] === 'string' ? values['public-key'] : null
  if (keys.length === 0 && publicKey === null)
    throw new AuditError(
      'no_secret',
      'HMAC secret required (--secret-hex or BIJOTEL_HMAC_SECRET) OR --public-key for auditor mode against a v2 export — at least one is required.',
    )
  const read = readExport(path)
  if ('error' in read) {
    io.err(`ERROR: cannot read export file: ${printable(read.error)}\n`)
    return EXIT.invalid
  }
  io.out(header(path, exportFacts(read.doc, read.size)))
  const format = read.doc['format']
  if (keys.length === 0 && format !== FORMAT_V2) {
    io.err(
      `ERROR: auditor mode requires a v2 export; this file is ${printable(pyStr(format))}. Either provide --secret-hex or ask the operator to re-export with --sign-key.\n`,
    )
    return EXIT.invalid
  }
  const v = verifyExportDoc(read.doc, keys, publicKey)
  if (!v.ok) {
    io.out(`Export INVALID: ${printable(v.reason)}\n`)
    return EXIT.invalid
  }
  if (keys.length > 0 && publicKey !== null)
    io.out('Export VALID — HMAC chain + Ed25519 signature both verified.\n')
  else if (publicKey !== null) {
    io.out('Export VALID — Ed25519 signature verified (auditor mode, HMAC not re-checked).\n')
    io.out(
      'Note: the signature covers only chain_signature, which cannot be tied to the entries without the HMAC secret: the entries themselves are not authenticated (reference §11.6).\n',
    )
  } else io.out('Export VALID — HMAC chain verified.\n')
  return EXIT.valid
}
