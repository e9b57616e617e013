// Turning a replay file into what is hashed. `python` mode reproduces Python BIJOTEL's
// `Path.read_text(encoding="utf-8")` (reference §6.4): strict UTF-8, universal newlines (CRLF and
// lone CR become LF), a UTF-8 BOM kept as U+FEFF, a trailing newline kept. `raw` mode hashes the
// file's bytes as they are. Both refuse files over the size limit, and `python` mode invalid UTF-8,
// with one-line AuditErrors instead of Python's traceback. A NUL byte is read as Python reads it
// (U+0000 is valid UTF-8, RFC 3629 §3, and `read_text` keeps it): the file is hashed, and a MATCH
// means its text is the output sealed, whatever it holds — refusing it left a sealed output holding
// U+0000 with no verdict from the CLI while `POST /replay/verify` took the same text.
import { readClientFile } from '../base/client-file'
import type { ReplayTextMode } from '../../shared/replay-types'
import { AuditError } from '../base/errors'
import { hasLoneSurrogate } from '../python/pyformat'

/** Largest replay file accepted (64 MiB): a model output is text, far below this. */
export const MAX_REPLAY_FILE_BYTES = 64 * 1024 * 1024

export interface ReplayInput {
  /** What is hashed: text (hashed as UTF-8) or bytes (raw mode, hashed as they are). */
  value: string | Buffer
  kind: 'text' | 'file'
  name: string | null
  /** The bytes as given (the file's bytes, or the UTF-8 of the text). */
  bytes: Buffer
  mode: ReplayTextMode
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Python's universal newlines: `\r\n` and a lone `\r` become `\n`. */
export function universalNewlines(s: string): string {
  return s.indexOf('\r') < 0 ? s : s.replace(/\r\n?/g, '\n')
}

/** Offset of the first byte that starts an invalid UTF-8 sequence (as Python's UnicodeDecodeError reports it). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0
  while (i < b.length) {
    const c = b[i] as number
    if (c < 0x80) {
      i++
      continue
    }
    let need: number
    let lo = 0x80
    let hi = 0xbf
    if (c >= 0xc2 && c <= 0xdf) need = 1
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2
      if (c === 0xe0) lo = 0xa0 // no overlongs
      if (c === 0xed) hi = 0x9f // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3
      if (c === 0xf0) lo = 0x90
      if (c === 0xf4) hi = 0x8f // nothing above U+10FFFF
    } else return i
    for (let k = 1; k <= need; k++) {
      const d = b[i + k]
      if (d === undefined) return i
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i
    }
    i += need + 1
  }
  return -1
}

function describeInvalidUtf8(bytes: Buffer): string {
  const at = Math.max(0, firstInvalidUtf8(bytes))
  return `byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, '0')} at offset ${at}`
}

/** Decode given bytes as the CLI's --output-file does; `label` names the source in errors. */
export function decodeReplayBytes(bytes: Buffer, mode: ReplayTextMode, label: string): string | Buffer {
  if (bytes.length > MAX_REPLAY_FILE_BYTES) {
    throw new AuditError(
      'too_large',
      `${label} is ${bytes.length} bytes, over the ${MAX_REPLAY_FILE_BYTES}-byte (64 MiB) limit for a replay output`,
    )
  }
  if (mode === 'raw') return bytes
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    throw new AuditError(
      'io',
      `${label} is not valid UTF-8 (${describeInvalidUtf8(bytes)}); use --raw to hash its bytes as they are`,
    )
  }
  return universalNewlines(text)
}

/** Read a replay file (size checked before reading). Missing → AuditError('not_found'). */
export function readReplayFile(
  path: string,
  mode: ReplayTextMode = 'python',
  flag = '--output-file',
): ReplayInput {
  // Opened and read once through the one client-file open (no FIFO or device: a replay output is a file).
  const bytes = readClientFile(path, {
    label: flag,
    maxBytes: MAX_REPLAY_FILE_BYTES,
    missingCode: 'not_found',
    code: 'io',
    tooLarge: (n) =>
      new AuditError(
        'too_large',
        `${flag} ${path} is ${n} bytes, over the ${MAX_REPLAY_FILE_BYTES}-byte (64 MiB) limit for a replay output`,
      ),
  })
  return { value: decodeReplayBytes(bytes, mode, `${flag} ${path}`), kind: 'file', name: path, bytes, mode }
}

/**
 * The UTF-8 bytes of a text that is hashed (a replayed output, a prompt). A lone surrogate (a JSON
 * `\ud800` escape) has no UTF-8 form (RFC 3629 §3): `Buffer.from` would hash U+FFFD's bytes in its
 * place, so `"\ud800"` read MATCH against a row sealed for `"\ufffd"`. Python's `.encode("utf-8")`
 * raises there; here it is a one-line refusal naming `label`.
 */
export function utf8Text(text: string, label: string): Buffer {
  if (hasLoneSurrogate(text)) {
    // With the u flag a surrogate class matches only a surrogate that is not half of a pair.
    const at = text.search(/[\uD800-\uDFFF]/u)
    const unit = text.charCodeAt(at).toString(16).toUpperCase()
    throw new AuditError(
      'bad_argument',
      `${label} holds a lone surrogate (U+${unit} at UTF-16 index ${at}): it is not Unicode text and has no UTF-8 bytes to hash`,
    )
  }
  return Buffer.from(text, 'utf8')
}

/** Text given directly (`--output`, REST `replayed_output`): used verbatim. */
export function textInput(text: string, label = 'the replayed output'): ReplayInput {
  return { value: text, kind: 'text', name: null, bytes: utf8Text(text, label), mode: 'python' }
}
