// A session for each test and the scratch folders it writes, both gone when the test ends: the
// handler and store tests each wrote these lines again (a module-level session, a list of folders,
// an afterEach that disposes and removes).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { AuditSession } from '../../../src/main/session/session'

export interface PerTest {
  /** A new session; the one this test made before is disposed first. */
  session(): AuditSession
  /** A scratch folder under the system's temporary folder (`prefix` + random), removed after the test. */
  scratch(prefix: string): string
}

/** Registers the afterEach; call once at the top of a test file. */
export function perTest(): PerTest {
  let current: AuditSession | null = null
  const dirs: string[] = []
  afterEach(() => {
    current?.dispose()
    current = null
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  return {
    session() {
      current?.dispose()
      current = new AuditSession()
      return current
    },
    scratch(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(dir)
      return dir
    },
  }
}
