// Room on disk for a private copy (made only of files the direct reader declines): counted against
// the free space of the folder it goes to, less the copies still being written there, so that
// several opens at once (four web clients in the long-work gate) cannot each see the same free
// space and together fill the disk. A copy a web client asks for (an open under the server's open
// policy) may take at most half of what is left: a client of the local web mode can name any file
// inside an --open-root that begins like a SQLite file, and the disk is the machine's, not the
// server's. The auditor's own opens (CLI, desktop) may use all but 5% and 16 MiB, as before.
import { promises as fsp } from 'node:fs'
import { AuditError } from '../base/errors'

/** Bytes of private copies still being written, per folder. */
const writing = new Map<string, number>()

/** The share of the free space one copy for a web client may take. */
export const WEB_COPY_SHARE = 0.5

/**
 * Reserves room for a copy of `total` bytes under `root`, or refuses in one line. Returns the
 * release (idempotent), to call once the copy is written (its bytes then count in the free space)
 * or abandoned.
 */
export async function reserveCopySpace(
  root: string,
  total: number,
  forWebClient: boolean,
): Promise<() => void> {
  let free: number
  try {
    const st = await fsp.statfs(root)
    free = st.bavail * st.bsize
  } catch {
    return () => {} // no statfs here: the copy's own write errors say when the disk is full
  }
  const left = free - (writing.get(root) ?? 0)
  if (left < total * 1.05 + 16 * 1024 * 1024)
    throw new AuditError(
      'too_large',
      `not enough free space in ${root} for a private copy of ${total} bytes (${Math.max(0, left)} free beside the copies being made); set BIJOTEL_TMPDIR to a larger folder`,
    )
  if (forWebClient && total > left * WEB_COPY_SHARE)
    throw new AuditError(
      'too_large',
      `this file needs a private copy of ${total} bytes, over half of the ${Math.max(0, left)} bytes free in ${root}: a web client may not take more; open it with the bijotel CLI or the desktop app`,
    )
  writing.set(root, (writing.get(root) ?? 0) + total)
  let held = true
  return () => {
    if (!held) return
    held = false
    const now = (writing.get(root) ?? 0) - total
    if (now > 0) writing.set(root, now)
    else writing.delete(root)
  }
}
