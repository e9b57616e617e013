// The command line as bytes. Node decodes each argument as UTF-8 and puts U+FFFD in place of bytes
// that are not UTF-8 (RFC 3629 §3), so `--output $'\xff'` reached the replay check as "\ufffd" and
// read MATCH against a row sealed for U+FFFD's bytes — bytes the auditor never gave. Python's argv
// keeps them as surrogate escapes and its encode raises. The kernel's copy of the arguments
// (/proc/self/cmdline on Linux) tells an argument given as U+FFFD from one that was not UTF-8.
import { readFileSync } from 'node:fs'

/** The arguments as the kernel holds them, or null where that copy cannot be read (not Linux). */
export function rawArgv(): Buffer[] | null {
  let bytes: Buffer
  try {
    bytes = readFileSync('/proc/self/cmdline')
  } catch {
    return null
  }
  const out: Buffer[] = []
  let start = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0) {
      out.push(bytes.subarray(start, i))
      start = i + 1
    }
  }
  if (start < bytes.length) out.push(bytes.subarray(start))
  return out
}

/**
 * Null when every argument is the text it was given as; else a one-line reason naming the first
 * argument that is not. `args` are the decoded arguments after the script; `raw` the kernel's whole
 * command line (its last `args.length` entries are those arguments). An argument holding U+FFFD
 * whose bytes cannot be read is refused too: it may stand for bytes that were never text.
 */
export function argvNotText(args: readonly string[], raw: readonly Buffer[] | null): string | null {
  const suspect = args.findIndex((a) => a.includes('\ufffd'))
  if (suspect < 0) return null
  if (raw === null || raw.length < args.length)
    return `argument ${suspect + 1} holds U+FFFD and its bytes cannot be read to tell whether it was valid UTF-8; give such text in a file (--output-file)`
  const tail = raw.slice(raw.length - args.length)
  for (let i = 0; i < args.length; i++) {
    if (!Buffer.from(args[i] as string, 'utf8').equals(tail[i] as Buffer)) {
      return `argument ${i + 1} is not valid UTF-8 text; give its bytes in a file (--output-file, with --raw to hash them as they are)`
    }
  }
  return null
}
