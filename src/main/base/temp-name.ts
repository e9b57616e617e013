// The temporary file an output is written to before it is renamed into place (the rename is atomic
// only within one folder, so the file sits beside its target). Its name is the target's own with a
// dot before and a tag after; a target name the file system takes (up to NAME_MAX, 255 bytes on
// Linux's file systems and macOS's, POSIX <limits.h>) must not make a temporary name it refuses:
// `-o` of 240 bytes made `.NAME.<tag>.tmp` past 255 and the write failed with ENAMETOOLONG
// ('internal error' for a report). The target's part is clipped on whole UTF-8 code points
// (RFC 3629 §3); the tag keeps the name unique.
import { basename, dirname, join } from 'node:path'

/** The longest file name (one path component) in bytes: NAME_MAX. */
export const NAME_MAX_BYTES = 255

/** `text` cut to at most `maxBytes` of UTF-8, never inside a code point. */
export function clipUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text
  let out = ''
  let bytes = 0
  for (const c of text) {
    const n = Buffer.byteLength(c, 'utf8')
    if (bytes + n > maxBytes) break
    bytes += n
    out += c
  }
  return out
}

/** The temporary file beside `target` for a write tagged `tag` (random hex, a pid): at most NAME_MAX bytes. */
export function tempBeside(target: string, tag: string): string {
  const suffix = `.${tag}.tmp`
  const room = NAME_MAX_BYTES - 1 - Buffer.byteLength(suffix, 'utf8')
  return join(dirname(target), `.${clipUtf8(basename(target), room)}${suffix}`)
}
