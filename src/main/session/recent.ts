// The recent-files list (File → Open Recent): the newest first, each path once.
const MAX_RECENT = 10

export function withRecent(recent: readonly string[], path: string): string[] {
  return [path, ...recent.filter((p) => p !== path)].slice(0, MAX_RECENT)
}
