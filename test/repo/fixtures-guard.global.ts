// Global guard for the whole vitest run: the shared fixtures are evidence, read in place and never
// written. A read-only SQLite connection opened on one in place still creates `-shm` (and an empty
// `-wal` for a WAL-mode file without one) beside it — this happened once and went unnoticed, so the
// folder's files (names, sizes, mtimes, SHA-256) are fingerprinted before the first test and
// compared after the last; any difference fails the run, naming the files.
import { fingerprintFolder } from '../main/testing/fixtures'

export default function setup(): () => void {
  const before = fingerprintFolder()
  return () => {
    const after = fingerprintFolder()
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
      (f) => before.get(f) !== after.get(f),
    )
    if (changed.length === 0) return
    // vitest reports an error thrown here but still exits 0: set the exit code as well.
    process.exitCode = 1
    throw new Error(
      `the test run changed the shared fixtures folder (created, removed or modified): ${changed.join(', ')}`,
    )
  }
}
