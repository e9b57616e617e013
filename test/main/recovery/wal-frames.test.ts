// The WAL's history as recovery places it (file-format §4, wal.c): committed frames of the current
// generation, the newest committed image of each page, frames after the last commit (uncommitted:
// their rows are set apart, never findings), and frames of earlier checkpoint generations.
import { readFileSync, writeFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { closeEvidence, openRecoveryEvidence } from '../testing/recovery-files'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { openPages } from '../../../src/main/recovery/pages'
import type { WalFrames } from '../../../src/main/recovery/wal-frames'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { generate, type Generated } from './generator'

let g: Generated | null = null
afterEach(() => g?.cleanup())

const framesOf = (db: string): WalFrames => {
  const f = openRecoveryEvidence(db)
  try {
    return openPages(f, 4096).wal
  } finally {
    closeEvidence(f)
  }
}

describe('WAL frames', () => {
  it('a live capture: every frame committed, one current image per page, nothing recovered', async () => {
    g = generate(
      {
        name: 'live',
        rows: 30,
        firstSeq: 1n,
        pageSize: 4096,
        pad: 300,
        journal: 'wal',
        live: true,
        scenario: { kind: 'clean' },
      },
      1,
    )
    const w = framesOf(g.db)
    expect(w.headerValid).toBe(true)
    expect(w.frames.length).toBeGreaterThan(30)
    expect(w.frames.every((f) => f.generation === 0 && f.committed === true)).toBe(true)
    const current = w.frames.filter((f) => f.current)
    expect(new Set(current.map((f) => f.page)).size).toBe(current.length)
    const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: g.key }]
    const { verdict } = await verifyFile(g.db, keys, { recover: true, workers: 1 })
    expect(verdict.valid).toBe(true)
    expect(verdict.recovered).toEqual([])
  })

  it('frames of earlier generations are placed by their salt', () => {
    g = generate(
      {
        name: 'gens',
        rows: 60,
        firstSeq: 1n,
        pageSize: 4096,
        pad: 300,
        journal: 'wal',
        live: true,
        scenario: { kind: 'clean-generations' },
      },
      2,
    )
    const w = framesOf(g.db)
    const gens = new Set(w.frames.map((f) => f.generation))
    expect(gens.has(0)).toBe(true)
    expect([...gens].some((x) => x !== null && x < 0)).toBe(true)
    // Their checksums chain from a header that is gone, but one frame to the next they still chain:
    // every transaction of a clean history reaches its commit frame, so each was committed.
    expect(w.frames.filter((f) => f.generation !== 0).every((f) => f.committed === true && !f.current)).toBe(
      true,
    )
  })

  it('a last transaction without its commit: its rows are uncommitted, never findings', async () => {
    g = generate(
      {
        name: 'in flight',
        rows: 30,
        firstSeq: 1n,
        pageSize: 4096,
        pad: 300,
        journal: 'wal',
        live: true,
        scenario: { kind: 'clean' },
      },
      3,
    )
    const wal = readFileSync(`${g.db}-wal`)
    const w = framesOf(g.db)
    const last = w.frames[w.frames.length - 1]!
    // Its commit frame no longer says "commit" (and its checksum no longer holds): SQLite's recovery
    // stops before that transaction, as if the writer had not finished it when the files were copied.
    wal.writeUInt32BE(0, last.offset + 4)
    writeFileSync(`${g.db}-wal`, wal)
    const after = framesOf(g.db)
    expect(after.frames.some((f) => f.committed === false)).toBe(true)
    const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: g.key }]
    const { verdict } = await verifyFile(g.db, keys, { recover: true, workers: 1 })
    expect(verdict.valid).toBe(true)
    expect(verdict.recovered).toEqual([])
    expect(verdict.recovery?.uncommitted_only).toBeGreaterThan(0)
    const r = recoverFile(g.db, keys)
    expect(r.rows).toEqual([])
    const lastRow = [...g.live.values()].pop()!
    expect(r.uncommitted.map((x) => x.hmac_hash)).toContain(lastRow.hmac)
    expect(r.uncommitted.every((x) => x.sources.every((s) => s.committed === false))).toBe(true)
  })
})
