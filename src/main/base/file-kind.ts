// What a file that is not a regular file is, in a message (client-file.ts, inputs.ts).
import type { Stats } from 'node:fs'

/** What a stat that is not a regular file is, in a message. */
export function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory'
  if (st.isFIFO()) return 'a FIFO'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  if (st.isSymbolicLink()) return 'a symbolic link'
  return 'not a regular file'
}
