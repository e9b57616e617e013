// Typed errors of the engine. Each carries a code that the CLI maps to an exit code and the
// transports map to a status, and a message that is one line an auditor can act on.

export type AuditErrorCode =
  | 'db_missing'
  | 'not_a_file'
  | 'empty_file'
  | 'not_sqlite'
  | 'truncated'
  | 'corrupt'
  | 'no_chain_table'
  | 'missing_columns'
  | 'io'
  | 'evidence_changed'
  | 'bad_argument'
  | 'bad_secret'
  | 'no_secret'
  | 'not_found'
  | 'too_large'
  | 'cancelled'
  | 'no_chain'
  | 'unavailable'

export class AuditError extends Error {
  readonly code: AuditErrorCode
  constructor(code: AuditErrorCode, message: string) {
    super(message)
    this.code = code
    this.name = 'AuditError'
  }
}

/** Codes that mean "this file is not a readable chain" (the DB-level failures). */
export const CHAIN_FILE_ERRORS: ReadonlySet<AuditErrorCode> = new Set([
  'db_missing',
  'not_a_file',
  'empty_file',
  'not_sqlite',
  'truncated',
  'corrupt',
  'no_chain_table',
  'missing_columns',
  'io',
  'evidence_changed',
])

export function isAuditError(e: unknown): e is AuditError {
  return e instanceof AuditError
}

/** Turn anything thrown into one line; SQLite and OS errors get their code kept. */
export function oneLine(e: unknown): string {
  if (e instanceof AuditError) return e.message
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code
    const msg = e.message.split('\n')[0] ?? ''
    return typeof code === 'string' && !msg.includes(code) ? `${msg} (${code})` : msg
  }
  return String(e).split('\n')[0] ?? ''
}

/** SQLite reports corruption while reading rows; give it the chain-file meaning. */
export function asChainReadError(e: unknown, where: string): AuditError {
  if (e instanceof AuditError) return e
  const code = (e as { code?: unknown })?.code
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT_INDEX') {
    return new AuditError('corrupt', `database file is corrupt (${String(code)}) ${where}`)
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    return new AuditError('corrupt', `SQLite error ${where}: ${oneLine(e)}`)
  }
  return new AuditError('io', `cannot read chain ${where}: ${oneLine(e)}`)
}
