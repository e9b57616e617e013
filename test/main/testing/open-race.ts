// Swaps a file between the open step's check and its open, deterministically (the race tests of
// issue 29 item 2). A test file wraps node:fs with `raceFs` through vi.mock; then `openRace.between`,
// when set, runs with the real path just before the one open(2) of a client file (the flags of
// src/main/base/client-file.ts: O_RDONLY | O_NOFOLLOW | O_NONBLOCK), after every check before it.
// Kept here, not as a hook in src/: nothing test-only ships.
import type * as Fs from 'node:fs'

export const openRace: { between: ((realPath: string) => void) | null } = { between: null }

export function raceFs(fs: typeof Fs): typeof Fs {
  const c = fs.constants
  const clientFlags = c.O_RDONLY | (c.O_NOFOLLOW ?? 0) | (c.O_NONBLOCK ?? 0)
  const openSync = ((...args: Parameters<typeof fs.openSync>) => {
    const [path, flags] = args
    if (flags === clientFlags && typeof path === 'string') openRace.between?.(path)
    return fs.openSync(...args)
  }) as typeof fs.openSync
  return { ...fs, openSync, default: { ...fs, openSync } } as typeof Fs
}
