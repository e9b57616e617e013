// A path holding a NUL names no file (POSIX: a file name is bytes other than '/' and NUL), yet the
// open step handed it to node, whose refusal ("The argument 'path' must be … without null bytes.
// Received …") came back as "cannot read …" with `not_a_chain` — a chain verdict word for what was
// a malformed request, in node's words. Generated paths (a NUL at drawn places of real chain paths,
// of missing ones, of folders, with control characters and non-ASCII around it), through the open
// step and the desktop app's openChain: each is refused as a bad request in one line of our own,
// and nothing is opened (the chain held stays held).
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openEvidence } from '../../../src/main/chain/evidence-files'
import { AuditError } from '../../../src/main/base/errors'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { dispatch } from '../../../src/main/handlers/dispatch'
import { dbPath } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { scratchDir } from '../reliability/chainkit'

const scratch = scratchDir('nul-names')
afterAll(() => scratch.cleanup())

function paths(seed: number): string[] {
  const rnd = mulberry32(seed)
  const bases = [dbPath('clean'), join(scratch.dir, 'missing.db'), scratch.dir, '/']
  const extra = ['', '\n', '\t', 'é', '模', '\u0001', '/..', '.db']
  return Array.from({ length: 30 }, () => {
    const b = bases[Math.floor(rnd() * bases.length)]!
    const at = Math.floor(rnd() * (b.length + 1))
    const nuls = '\0'.repeat(1 + Math.floor(rnd() * 3))
    return b.slice(0, at) + nuls + extra[Math.floor(rnd() * extra.length)]! + b.slice(at)
  })
}

describe('a path holding a NUL is a bad request, said in one line', () => {
  it('the open step', () => {
    for (const p of paths(5)) {
      let err: unknown = null
      try {
        openEvidence(p).close()
      } catch (e) {
        err = e
      }
      expect(err, JSON.stringify(p)).toBeInstanceOf(AuditError)
      expect((err as AuditError).code, JSON.stringify(p)).toBe('bad_argument')
      expect((err as Error).message).toMatch(/^not a path: /)
      expect((err as Error).message).not.toMatch(/\n|argument 'path'|Received/)
    }
  })

  it("the desktop app's openChain, the chain held staying held", async () => {
    const s = new AuditSession({})
    try {
      await s.open(dbPath('clean'))
      const table = createHandlers(s)
      const ipc = { transport: 'ipc' as const, trusted: true }
      for (const p of paths(6)) {
        const r = await dispatch(table, 'openChain', { path: p }, ipc)
        expect(r.ok, JSON.stringify(p)).toBe(false)
        if (r.ok) continue
        expect(r.error.code, JSON.stringify(p)).toBe('bad_request')
        expect(r.error.error).not.toMatch(/\n|argument 'path'|Received/)
        expect(s.current()?.overview.evidence.db.path).toBe(dbPath('clean'))
      }
    } finally {
      s.dispose()
    }
  })
})
