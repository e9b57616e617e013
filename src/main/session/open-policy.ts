// Which files a web client may open: the policy is a predicate on real paths, applied by the open
// step to the chain and to every side file it opens (../chain/evidence-files.ts).
import { realpathSync } from 'node:fs'
import { sep } from 'node:path'
import { SIDE_SUFFIX, type OpenPolicy } from '../chain/evidence-files'

export interface PolicyOptions {
  samplePath?: string | null
  initialPath?: string | null
  /** Folders whose files a web client may open by path (the served --db is always allowed). */
  openRoots?: string[]
}

function real(p: string): string | null {
  try {
    return realpathSync.native(p)
  } catch {
    return null
  }
}

/**
 * The open policy of a web client, on real paths: inside an --open-root, or the served chain (or
 * the sample) itself and its side files under their own names. It is applied by the open step to
 * the chain and to every side file (a `-wal` linked outside the roots is refused), on the paths
 * it has resolved and checked after opening them.
 */
export function openPolicyOf(options: PolicyOptions): OpenPolicy {
  const exact = new Set<string>()
  for (const p of [options.initialPath, options.samplePath]) {
    const r = p ? real(p) : null
    if (r === null) continue
    exact.add(r)
    for (const suffix of Object.values(SIDE_SUFFIX)) exact.add(r + suffix)
  }
  const roots = (options.openRoots ?? [])
    .map(real)
    .filter((r): r is string => r !== null)
    .map((r) => (r.endsWith(sep) ? r : r + sep))
  return (p) => exact.has(p) || roots.some((r) => p.startsWith(r))
}

/** Whether a web client may open `path` (its real path passes the policy). */
export function mayOpenUnder(options: PolicyOptions, path: string): boolean {
  const r = real(path)
  return r !== null && openPolicyOf(options)(r)
}
