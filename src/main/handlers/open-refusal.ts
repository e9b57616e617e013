// Why a web client's path is not opened, in the page's words (issue 35: four different cases, not
// one "not allowed"). Nothing here opens the file: the open step does, with the same policy, on the
// descriptor (issue 29). What a client may learn is bounded: whether a path exists is told only
// for paths inside the folders the server opens; outside them, every case reads "outside".
import { lstatSync, realpathSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { absentInside } from '../base/client-file'
import type { OpenPolicy } from '../chain/evidence-files'

export type OpenRefusal = 'relative' | 'outside' | 'missing' | 'folder'

/** The reason `path` is refused for a web client, or null when the open step may try it. */
export function openRefusal(path: string, policy: OpenPolicy): OpenRefusal | null {
  if (!isAbsolute(path)) return 'relative'
  let real: string
  try {
    real = realpathSync.native(path)
  } catch {
    // Nothing there: say so only when the kernel's lookup ends at nothing inside the folders served
    // (not lexically: `root/link-out/x` or a dangling link would tell what exists outside).
    return absentInside(path, policy) ? 'missing' : 'outside'
  }
  let folder: boolean
  try {
    // lstat, not stat: `real` has no link in it, but one swapped in since would be followed by stat,
    // and whether its target exists outside would decide between "missing" and a try of the open.
    folder = lstatSync(real).isDirectory()
  } catch {
    return absentInside(real, policy) ? 'missing' : 'outside'
  }
  // A folder served (a root itself, or one inside): its files would be allowed, so say it is a folder.
  if (folder) return policy(real) || policy(join(real, 'chain.db')) ? 'folder' : 'outside'
  return policy(real) ? null : 'outside'
}

/** The one-line message of a refusal, in the UI's words (no command-line flags). */
export function refusalMessage(
  kind: OpenRefusal,
  path: string,
  roots: string[],
  what: 'chain' | 'file' = 'chain',
): string {
  const where =
    roots.length > 0
      ? `this server reads files only from ${roots.join(', ')}`
      : 'this server reads only the chain it was started with'
  switch (kind) {
    case 'relative':
      return `${path} is a relative path: give the full path of the ${what === 'chain' ? 'chain file' : 'file'} (starting with /)`
    case 'missing':
      return `${path} does not exist: check the name${what === 'chain' ? ' (a chain file usually ends in .db)' : ''}`
    case 'folder':
      return `${path} is a folder: give the path of the ${what === 'chain' ? 'chain file (the .db file)' : 'file'} inside it`
    case 'outside':
      return `${path} is outside the folders this server may read: ${where}; ask whoever started it to add the folder`
  }
}
