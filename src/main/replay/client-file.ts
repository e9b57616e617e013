// Reading a file a client named (a batch line's output_file or prompt_file, a file of a replay
// folder). The one place that opens such a path, so that it can be swapped for the shared function
// of issue 34. The path is opened first and the OPENED descriptor is checked (fstat), never the name
// beforehand: a name checked and then opened can be swapped in between. O_NONBLOCK keeps the open of
// a FIFO from waiting for a writer; anything but a regular file (FIFO, device, socket, folder) is
// refused; the size is bounded before a byte is read, and reading stops at the bound.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { AuditError, oneLine } from '../base/errors'

/** The bytes of the regular file at `path`, at most `maxBytes`; `label` names it in errors. */
export function readClientFile(path: string, maxBytes: number, label: string): Buffer {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0))
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new AuditError('not_found', `${label} not found: ${path}`)
    throw new AuditError('io', `cannot read ${label}: ${oneLine(e)}`)
  }
  try {
    const st = fstatSync(fd)
    if (st.isDirectory()) throw new AuditError('io', `cannot read ${label}: ${path} is a directory`)
    if (!st.isFile()) throw new AuditError('io', `cannot read ${label}: ${path} is not a regular file`)
    if (st.size > maxBytes) {
      throw new AuditError(
        'too_large',
        `${label} ${path} is ${st.size} bytes, over the ${maxBytes}-byte limit for a replay output`,
      )
    }
    // A file that grows while it is read is read up to its fstat size (and refused past the bound).
    const bytes = Buffer.alloc(st.size)
    let off = 0
    while (off < bytes.length) {
      const n = readSync(fd, bytes, off, bytes.length - off, off)
      if (n === 0) break
      off += n
    }
    return bytes.subarray(0, off)
  } catch (e) {
    if (e instanceof AuditError) throw e
    throw new AuditError('io', `cannot read ${label}: ${oneLine(e)}`)
  } finally {
    closeSync(fd)
  }
}
