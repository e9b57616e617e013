// Where the CLI takes HMAC keys from. A key given on the command line (--secret-hex, --secret-text)
// is readable by every local user in the process list (/proc/<pid>/cmdline, `ps`) for as long as the
// command runs, and stays in the shell's history; --secret-file and --secret-stdin keep it off both.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs'
import { noteInput } from '../base/inputs'
import type { SecretInput } from '../../shared/contract'
import { AuditError, oneLine } from '../base/errors'
import { KEY_LIST_MAX_BYTES, parseKeyList } from '../chain/key-list'
import type { Options, Values } from './args'
import type { CliIO } from './io'

export const SECRET_OPTIONS: Options = {
  'secret-hex': { type: 'string', multiple: true },
  'secret-text': { type: 'string', multiple: true },
  'secret-file': { type: 'string', multiple: true },
  'secret-stdin': { type: 'boolean' },
}

function strings(v: unknown): string[] {
  if (v === undefined) return []
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string')
}

/** How long a named FIFO with no writer yet is waited on before it reads as empty. */
const WRITER_GRACE_MS = 500

/** Sleeps the thread `ms` milliseconds (a key file is read before anything else runs). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * At most KEY_LIST_MAX_BYTES + 1 bytes of a file (a FIFO such as `<(…)` included: no size is
 * trusted). Opened with O_NONBLOCK: a pipe the shell made (`<(pass show key)`) has its writer, and
 * is read as its bytes come (EAGAIN: wait a little, read again); a named FIFO that no process has
 * open for writing reads as end of file at once — never a wait, with no timeout, for a writer that
 * may never come (the open of a FIFO without O_NONBLOCK blocks until one does).
 */
export function readBounded(path: string, label: string): Buffer {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (e) {
    throw new AuditError('bad_secret', `${label}: cannot read it (${oneLine(e)})`)
  }
  try {
    const buf = Buffer.alloc(KEY_LIST_MAX_BYTES + 1)
    const st = fstatSync(fd)
    const fifo = st.isFIFO()
    if (st.isFile()) noteInput(realpathSync.native(path), st, `${label}`)
    // A writer blocked in its own open of a named FIFO (`echo KEY > f &`) gets in once we have
    // opened it: until then a read says end of file, so a FIFO read nothing from yet is given
    // WRITER_GRACE_MS for a writer to appear.
    const graceEnd = Date.now() + WRITER_GRACE_MS
    let writerSeen = false
    let n = 0
    for (;;) {
      let got: number
      try {
        got = readSync(fd, buf, n, buf.length - n, null)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e
        writerSeen = true
        pause(5)
        continue
      }
      if (got === 0) {
        if (fifo && n === 0 && !writerSeen && Date.now() < graceEnd) {
          pause(5)
          continue
        }
        break
      }
      writerSeen = true
      n += got
      if (n === buf.length) break
    }
    if (n === 0 && fifo)
      throw new AuditError('bad_secret', `${label}: a FIFO that no process writes to (nothing to read)`)
    return buf.subarray(0, n)
  } catch (e) {
    if (e instanceof AuditError) throw e
    throw new AuditError('bad_secret', `${label}: cannot read it (${oneLine(e)})`)
  } finally {
    closeSync(fd)
  }
}

/**
 * A one-line secret kept in a file (`serve --api-key-file`): the file's text without its final line
 * ending. Refused when empty, over one line, or not UTF-8 text; the error never shows the content.
 */
export function readOneLineSecret(path: string, label: string): string {
  const data = readBounded(path, label)
  if (data.length > KEY_LIST_MAX_BYTES || data.includes(0))
    throw new AuditError('bad_secret', `${label}: not a key file`)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data)
  } catch {
    throw new AuditError('bad_secret', `${label}: not UTF-8 text`)
  }
  const value = text.replace(/\r?\n$/, '')
  if (value === '') throw new AuditError('bad_secret', `${label}: the file is empty`)
  if (/[\r\n]/.test(value)) throw new AuditError('bad_secret', `${label}: the key must be one line`)
  return value
}

/**
 * Candidate keys in a fixed order: every --secret-hex, every --secret-text, the keys of each
 * --secret-file in the order given, then those of --secret-stdin. BIJOTEL_HMAC_SECRET (hex, as
 * Python reads it) is used only when none of them gave a key and `useEnv` is set.
 */
export async function secretInputsFrom(
  values: Values,
  io: CliIO,
  opts: { useEnv: boolean },
): Promise<SecretInput[]> {
  const out: SecretInput[] = [
    ...strings(values['secret-hex']).map((value) => ({ encoding: 'hex' as const, value })),
    ...strings(values['secret-text']).map((value) => ({ encoding: 'text' as const, value })),
  ]
  // An empty flag is most often a shell variable that did not expand: never fall back to another key.
  for (const s of out)
    if (s.value === '') throw new AuditError('no_secret', `an empty --secret-${s.encoding} was given`)
  for (const path of strings(values['secret-file'])) {
    const label = `--secret-file ${path}`
    out.push(...parseKeyList(readBounded(path, label), label))
  }
  if (values['secret-stdin'] === true) {
    let data: Buffer
    try {
      data = await io.readStdin(KEY_LIST_MAX_BYTES + 1)
    } catch (e) {
      throw new AuditError('bad_secret', `--secret-stdin: cannot read stdin (${oneLine(e)})`)
    }
    out.push(...parseKeyList(data, '--secret-stdin'))
  }
  if (out.length === 0 && opts.useEnv && io.env['BIJOTEL_HMAC_SECRET'])
    out.push({ encoding: 'hex', value: io.env['BIJOTEL_HMAC_SECRET'] })
  return out
}
