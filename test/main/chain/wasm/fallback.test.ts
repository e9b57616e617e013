// Under an address-space limit V8 cannot make a wasm memory (it reserves ≈10 GB of address space for
// one): without the native scanner (BIJOTEL_NATIVE=0) the body facts then come from JSON.parse, and
// every report must be the same as with the scanner the CLI picks by default.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { cliAvailable, runCli } from '../../reliability/cli-runner'
import { dbPath, fixtureNames } from '../../testing/fixtures'

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p))
const LIMIT_MB = 4096

function wasmFailsUnderLimit(): boolean {
  const probe = 'try { new WebAssembly.Memory({ initial: 1 }); process.exit(0) } catch { process.exit(7) }'
  const r = spawnSync(PRLIMIT!, [`--as=${LIMIT_MB * 1024 * 1024}`, process.execPath, '-e', probe])
  return r.status === 7
}

const runnable = PRLIMIT !== undefined && cliAvailable() && wasmFailsUnderLimit()

describe.skipIf(!runnable)('without wasm (RLIMIT_AS), integrity reports are unchanged', () => {
  for (const name of fixtureNames()) {
    it(name, () => {
      for (const mode of [['--all'], ['--window', '10000']]) {
        const args = ['integrity', '--db', dbPath(name), ...mode, '--json']
        const bounded = runCli(args, { addressSpaceMb: LIMIT_MB, env: { BIJOTEL_NATIVE: '0' } })
        const free = runCli(args, { addressSpaceMb: 1 << 30 })
        expect(bounded.memoryBounded).toBe(true)
        expect(free.status, free.stderr).not.toBeNull()
        expect([bounded.status, bounded.stdout, bounded.stderr]).toEqual([
          free.status,
          free.stdout,
          free.stderr,
        ])
      }
    })
  }
})
