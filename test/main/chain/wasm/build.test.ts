// The committed wasm must be what its AssemblyScript source compiles to with the pinned compiler:
// nobody can change the scanner's source and forget the binary, or ship a binary without a source.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = join(__dirname, '../../../..')

it('json-scan.wasm.ts is json-scan.as.ts compiled', () => {
  const run = (): string =>
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-wasm.mjs'), '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  expect(run).not.toThrow()
})
