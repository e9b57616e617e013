// A service that only seals spans must not pay for the auditor's side: the writer subpath of the
// built package loads the writer, JCS, the HMAC and the SQLite driver's loader, and nothing of the
// reading layer, its workers, the CLI, the app or the UI — whether it is imported or required. The
// root entry, for contrast, does load the reading layer.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from '../testing/cli'
import { REPO_ROOT } from '../testing/fixtures'
import { heavyModules, loadedBy } from './loaded-modules'

beforeAll(() => {
  ensureBuilt()
  if (!existsSync(join(REPO_ROOT, 'out', 'main', 'library-writer.mjs')))
    throw new Error('out/main has no library entries: run `npx electron-vite build`')
}, 300_000)

describe('bijotel-auditor/writer', () => {
  for (const as of ['require', 'import'] as const) {
    it(`loads only the writer (${as})`, () => {
      // The package refers to itself by name from inside its folder (Node's package self-reference).
      const loaded = loadedBy('bijotel-auditor/writer', REPO_ROOT, as)
      expect(loaded.modules).toContain('src/main/writer/chain-writer.ts')
      expect(loaded.modules).toContain('src/main/writer/processor.ts')
      expect(loaded.modules).toContain('src/main/replay/recorder.ts')
      expect(heavyModules(loaded)).toEqual([])
      // better-sqlite3 itself is loaded when the first chain is opened, not on import.
      expect(loaded.files.filter((f) => f.includes('better-sqlite3'))).toEqual([])
    })
  }

  it('the root entry does load the reading layer (the check above can fail)', () => {
    const loaded = loadedBy('bijotel-auditor', REPO_ROOT, 'require')
    expect(heavyModules(loaded).length).toBeGreaterThan(0)
  })
})
