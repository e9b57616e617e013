// Python's `pathlib` spelling of a POSIX path, for the CLI lines that print one as Python BIJOTEL
// does (`export`'s `Exported chain to <out>` §4.6, `keygen`'s `Generated Ed25519 keypair in <dir>/`
// §4.8).

/**
 * A path as Python's `str(pathlib.Path(p))` writes it (POSIX): empty and `.` components dropped,
 * repeated and trailing slashes folded, a leading `//` kept (POSIX leaves it implementation
 * defined, and pathlib keeps exactly two), `.` for nothing.
 */
export function pyPathStr(p: string): string {
  const root = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : ''
  const body = p
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/')
  return root + body || '.'
}
