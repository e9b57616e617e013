// Recent files, kept in the user's app-data folder (paths only; never keys or chain content).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

export function loadRecent(file: string): string[] {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown
    return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string').slice(0, 10) : []
  } catch {
    return []
  }
}

export function saveRecent(file: string, paths: string[]): void {
  try {
    if (!existsSync(dirname(file))) mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, JSON.stringify(paths, null, 2))
  } catch {
    // Recent files are a convenience; failing to save them must not disturb an audit.
  }
}
