// Writing a file beside evidence without ever touching the evidence: the target is refused when it
// is, or resolves to, the chain file or one of its side files (`-wal`, `-shm`, `-journal`: a file
// created under one of those names would change what SQLite and the direct reader read), by name,
// through symlinks, or as a hard link of one. The file is written under a temporary name in the
// target's folder and renamed into place only when complete, so a failed or refused export leaves
// nothing behind and never a half-written file under the final name.
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { writeTarget } from '../base/client-file'
import { tempBeside } from '../base/temp-name'
import { refuseInputTarget } from '../base/inputs'
import { AuditError, oneLine } from '../base/errors'

const SIDE_SUFFIXES = ['', '-wal', '-shm', '-journal'] as const

function statOrNull(p: string, follow = true): Stats | null {
  try {
    return follow ? statSync(p) : lstatSync(p)
  } catch {
    return null
  }
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/** `path` with its folder's symlinks resolved (the file itself need not exist). */
function realFolderPath(p: string): string {
  return join(realOrSelf(dirname(p)), basename(p))
}

/** Every name under which the evidence files of the chain at `db` are (or would be) found. */
function evidenceNames(db: string): Map<string, string> {
  const names = new Map<string, string>()
  const bases = new Set([resolve(db), realFolderPath(resolve(db)), realOrSelf(resolve(db))])
  for (const base of bases)
    for (const side of SIDE_SUFFIXES)
      names.set(base + side, side === '' ? 'the chain file' : `its ${side} file`)
  return names
}

/**
 * Throws unless `output` is a place a new file may be written without touching the evidence of the
 * chain at `db`. Returns the path the file will be renamed to (symlinks followed, as Python's
 * `write_text` follows them).
 */
export function checkOutputTarget(output: string, db: string, what = 'the export'): string {
  // The folder as the kernel resolves it (`..` after a link included), the last name kept as is:
  // a link there is seen below, and followed as Python's write_text follows it.
  const target = join(writeTarget(dirname(output)), basename(output))
  const names = evidenceNames(db)
  const refuse = (which: string): never => {
    throw new AuditError('bad_argument', `refusing to write ${what} over the evidence: ${output} is ${which}`)
  }
  const own = statOrNull(target, false)
  const finalPath = own?.isSymbolicLink() ? realOrSelf(target) : realFolderPath(target)
  for (const p of [target, realFolderPath(target), finalPath]) {
    const which = names.get(p)
    if (which !== undefined) refuse(which)
  }
  const st = statOrNull(finalPath)
  if (st) {
    if (st.isDirectory()) throw new AuditError('bad_argument', `${output} is a directory`)
    // A hard link of an evidence file is that file under another name.
    for (const [p, which] of names) {
      const e = statOrNull(p)
      if (e && e.dev === st.dev && e.ino === st.ino) refuse(which)
    }
  }
  refuseInputTarget(finalPath, output, what)
  return finalPath
}

/** A file written under a temporary name beside its target, renamed into place by `commit`. */
export class AtomicOutput {
  private readonly fd: number
  private readonly tmp: string
  private readonly buf = Buffer.allocUnsafe(4 << 20)
  private used = 0
  private done = false

  constructor(readonly target: string) {
    this.tmp = tempBeside(target, randomBytes(6).toString('hex'))
    try {
      this.fd = openSync(this.tmp, 'wx', 0o666)
    } catch (e) {
      throw new AuditError('io', `cannot write ${target}: ${oneLine(e)}`)
    }
  }

  /**
   * Append text that is ASCII only (an export is: json.dumps escapes every other character), one
   * byte per character; buffered in 4 MB.
   */
  writeAscii(text: string): void {
    if (this.used + text.length > this.buf.length) {
      this.flush()
      if (text.length > this.buf.length) {
        this.writeOut(Buffer.from(text, 'latin1'))
        return
      }
    }
    this.used += this.buf.write(text, this.used, 'latin1')
  }

  /** Append bytes as they are (a report page or PDF). */
  writeBytes(data: Buffer): void {
    this.flush()
    this.writeOut(data)
  }

  private flush(): void {
    if (this.used === 0) return
    this.writeOut(this.buf.subarray(0, this.used))
    this.used = 0
  }

  private writeOut(data: Buffer): void {
    try {
      let off = 0
      while (off < data.length) off += writeSync(this.fd, data, off)
    } catch (e) {
      throw new AuditError('io', `cannot write ${this.target}: ${oneLine(e)}`)
    }
  }

  /** Flush, sync and rename into place; returns the file's size. */
  commit(): number {
    try {
      this.flush()
      fsyncSync(this.fd)
      const size = fstatSync(this.fd).size
      closeSync(this.fd)
      this.done = true
      // Again now that every input has been read (a file read after the target was checked).
      refuseInputTarget(this.target, this.target, 'the output')
      renameSync(this.tmp, this.target)
      return size
    } catch (e) {
      this.abort()
      if (e instanceof AuditError) throw e
      throw new AuditError('io', `cannot write ${this.target}: ${oneLine(e)}`)
    }
  }

  /** Remove the temporary file (nothing is left under the target's name). */
  abort(): void {
    if (!this.done) {
      this.done = true
      try {
        closeSync(this.fd)
      } catch {
        // already closed
      }
    }
    try {
      unlinkSync(this.tmp)
    } catch {
      // already gone (renamed, or never made)
    }
  }
}
