// What the page remembers in localStorage: recent paths (web mode has no app-data folder) and
// whether the bundled sample was opened once. Never keys, never chain content.
const RECENT_KEY = 'bijotel.recent'
const FIRST_RUN_KEY = 'bijotel.sample-opened'
export const MAX_RECENT = 10

export function loadRecent(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]')
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, MAX_RECENT) : []
  } catch {
    return []
  }
}

export function saveRecent(list: string[]): void {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(list))
  } catch {
    // storage unavailable: recent paths stay in memory
  }
}

/** True the first time only (then the bundled sample is opened). */
export function firstRun(): boolean {
  try {
    if (localStorage.getItem(FIRST_RUN_KEY)) return false
    localStorage.setItem(FIRST_RUN_KEY, '1')
  } catch {
    // no storage: treat as first run
  }
  return true
}
