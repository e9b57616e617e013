// Worker threads: where their built scripts are, and how many to start. From sources (the unit
// tests) there are no built scripts, and every pass runs on the calling thread.
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

/** Below this many rows, starting threads costs more than it saves. */
export const PARALLEL_MIN_ROWS = 50_000

/** Locate a built worker entry beside the bundle (shared code may sit one level down in chunks/). */
export function builtScript(name: string): string | null {
  for (const p of [join(__dirname, name), join(__dirname, '..', name)]) if (existsSync(p)) return p
  return null
}

/** Worker threads for a pass: BIJOTEL_WORKERS, else the cores (at most 8). */
export function defaultWorkerCount(): number {
  const forced = Number(process.env['BIJOTEL_WORKERS'])
  if (Number.isInteger(forced) && forced >= 1) return Math.min(forced, 16)
  return Math.max(1, Math.min(8, availableParallelism()))
}

/**
 * Row workers beside a pass that holds one core from start to end (verify's evidence hash, one
 * SHA-256 stream of the whole file): the other cores, at least one; BIJOTEL_WORKERS as given. On two
 * cores one row worker then has a core to itself instead of two sharing it (and each paying its
 * start-up and its own compilation of the hot code: ≈0.3 s of CPU at 1M rows, measured).
 */
export function workersBeside(): number {
  const forced = Number(process.env['BIJOTEL_WORKERS'])
  if (Number.isInteger(forced) && forced >= 1) return Math.min(forced, 16)
  return Math.max(1, defaultWorkerCount() - 1)
}
