// Issue 35 through the handler table. (1) Keys belong to a chain: opening another chain clears the
// key set, so a key given for one case never makes another case BROKEN. (2) Adding keys keeps the
// ones held (`keep`), in order, numbered again from #1. (3) A web client's path refused for four
// different reasons gets four different one-line messages in the page's words (no CLI flag), and
// a path outside the served folders never tells whether it exists.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { KeyInfo } from '../../../src/shared/verify-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { SMALL, writeChainFolder } from '../testing/exact-chains'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-keys-refusals-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let session: AuditSession | null = null
afterEach(() => session?.dispose())

const web = { transport: 'http' as const, trusted: true }
const fp = (hex: string): string =>
  createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex').slice(0, 8)
const hexKey = (i: number): string => (i + 1).toString(16).padStart(2, '0').repeat(32)

const root = join(scratch, 'root')
const a = writeChainFolder(join(root, 'a'), SMALL)
const b = writeChainFolder(join(root, 'b'), SMALL)

describe('keys belong to a chain', () => {
  it('opening another chain (or the same again) clears every key; a verify then asks for the key', async () => {
    session = new AuditSession({ openRoots: [root] })
    const h = createHandlers(session)
    for (const [n, next] of [
      [1, b],
      [3, a],
      [2, a],
    ] as const) {
      await h.openChain({ path: next === a ? b : a }, web)
      const given = Array.from({ length: n }, (_, i) => ({ encoding: 'hex' as const, value: hexKey(i) }))
      expect(((await h.setSecrets({ secrets: given }, web)) as KeyInfo[]).length).toBe(n)
      await h.openChain({ path: next }, web)
      expect(await h.listKeys(undefined, web)).toEqual([])
      await expect(h.startVerify({}, web)).rejects.toThrow(/enter the chain secret first/)
    }
  })
})

describe('adding keys keeps the keys held', () => {
  it('every subset kept, in its order, then the new keys; numbered again from #1', async () => {
    session = new AuditSession({ openRoots: [root] })
    const h = createHandlers(session)
    await h.openChain({ path: a }, web)
    const held = [0, 1, 2].map(hexKey)
    const subsets: number[][] = [[], [0], [1], [2], [0, 1], [2, 0], [1, 2], [0, 1, 2], [2, 1, 0]]
    for (const keep of subsets) {
      await h.setSecrets({ secrets: held.map((value) => ({ encoding: 'hex' as const, value })) }, web)
      const added = hexKey(7)
      const got = (await h.setSecrets(
        { secrets: [{ encoding: 'hex', value: added }], ...(keep.length ? { keep } : {}) },
        web,
      )) as KeyInfo[]
      const want = [...keep.map((i) => held[i]!), added]
      expect(got.map((k) => k.fingerprint)).toEqual(want.map(fp))
      expect(got.map((k) => k.index)).toEqual(want.map((_, i) => i))
    }
    // Removing one: no new secret, the others kept.
    await h.setSecrets({ secrets: held.map((value) => ({ encoding: 'hex' as const, value })) }, web)
    const left = (await h.setSecrets({ secrets: [], keep: [0, 2] }, web)) as KeyInfo[]
    expect(left.map((k) => k.fingerprint)).toEqual([held[0]!, held[2]!].map(fp))
  })

  it('refuses a kept index that is not held, a repeated one, or a non-integer; the set is unchanged', async () => {
    session = new AuditSession({ openRoots: [root] })
    const h = createHandlers(session)
    await h.openChain({ path: a }, web)
    await h.setSecrets({ secrets: [{ encoding: 'hex', value: hexKey(0) }] }, web)
    for (const keep of [[1], [5], [-1], [0, 0], ['0'], [0.5], 'all', { 0: 0 }]) {
      await expect(
        h.setSecrets({ secrets: [{ encoding: 'hex', value: hexKey(1) }], keep } as never, web),
      ).rejects.toThrow(/key|keep/)
      expect(((await h.listKeys(undefined, web)) as KeyInfo[]).map((k) => k.fingerprint)).toEqual([
        fp(hexKey(0)),
      ])
    }
  })

  it('a bad hex secret is refused in the page’s words, naming no command-line flag and no part of it', async () => {
    session = new AuditSession({ openRoots: [root] })
    const h = createHandlers(session)
    await h.openChain({ path: a }, web)
    for (const value of ['not hex', 'abc', 'zz11', 'a5a5 5', 'secret-value-xyz']) {
      const err = await h.setSecrets({ secrets: [{ encoding: 'hex', value }] }, web).catch((e: Error) => e)
      expect(err).toBeInstanceOf(Error)
      const msg = (err as Error).message
      expect(msg).not.toMatch(/--/)
      expect(msg).toMatch(/"text"/)
      expect(msg).not.toContain(value)
    }
  })
})

describe('a refused path says why, four different ways', () => {
  const outside = join(scratch, 'outside')
  mkdirSync(outside, { recursive: true })
  const outsideChain = writeChainFolder(join(outside, 'c'), SMALL)
  writeFileSync(join(outside, 'notes.txt'), 'x')
  symlinkSync(outsideChain, join(root, 'link-out.db'))

  const cases: { path: string; kind: 'relative' | 'missing' | 'folder' | 'outside' }[] = [
    ...['chain.db', './a/chain.db', '../root/a/chain.db', 'a', relative(process.cwd(), a)].map((p) => ({
      path: p,
      kind: 'relative' as const,
    })),
    ...['nope.db', 'a/chain-2.db', 'zz/chain.db', 'a/chain.db-wal'].map((p) => ({
      path: join(root, p),
      kind: 'missing' as const,
    })),
    ...[root, join(root, 'a'), join(root, 'b') + '/'].map((p) => ({ path: p, kind: 'folder' as const })),
    // Outside: existing or not, a file or a folder, or a link leading out: all the same words.
    ...[
      outsideChain,
      join(outside, 'missing.db'),
      join(outside, 'notes.txt'),
      outside,
      '/etc/passwd',
      '/nonexistent/x.db',
      join(root, 'link-out.db'),
      join(root, '..', 'outside', 'c', 'chain.db'),
    ].map((p) => ({ path: p, kind: 'outside' as const })),
  ]
  const words: Record<string, RegExp> = {
    relative: /is a relative path: give the full path/,
    missing: /does not exist/,
    folder: /is a folder: give the path of the chain file/,
    outside: /is outside the folders this server may read: this server reads files only from /,
  }

  it.each(cases)('$kind: $path', async ({ path, kind }) => {
    session = new AuditSession({ openRoots: [root] })
    const h = createHandlers(session)
    const err = await h.openChain({ path }, web).catch((e: Error) => e)
    expect(err).toBeInstanceOf(Error)
    const msg = (err as Error).message
    expect(msg).toMatch(words[kind]!)
    for (const [k, w] of Object.entries(words)) if (k !== kind) expect(msg).not.toMatch(w)
    expect(msg).not.toMatch(/--open-root|not allowed here/)
    expect(msg.split('\n')).toHaveLength(1)
  })

  it('a chain inside the folder still opens', async () => {
    session = new AuditSession({ openRoots: [root] })
    const h = createHandlers(session)
    expect(((await h.openChain({ path: a }, web)) as { entries: number }).entries).toBe(SMALL.rows)
  })
})
