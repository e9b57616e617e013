// Test kit: what every honest-history suite asks of a generated history — verified with every key,
// without its archive segments and with them, no finding, VALID, and no proven row called deleted or
// superseded (issue 39: an honest operator is never accused).
import { expect } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import type { ArchiveSegments } from '../../../src/main/recovery/findings'
import type { VerifyVerdict } from '../../../src/shared/verify-types'

/** A generated history: the chain, its keys, its archive segments and the steps taken. */
export interface History {
  db: string
  keys: Buffer[]
  segments: string[]
  log: string[]
}

/** The segment sets a history is verified with: none; given; and, with `orders`, reversed and each twice. */
export async function segmentRuns(paths: string[], orders = true): Promise<(ArchiveSegments | undefined)[]> {
  if (paths.length === 0) return [undefined]
  const given = [undefined, await readSegments(paths)]
  if (!orders) return given
  return [...given, await readSegments([...paths].reverse()), await readSegments([...paths, ...paths])]
}

/** No finding and VALID; `what` names the history (the recovery summary is shown on a finding). */
export function expectValid(verdict: VerifyVerdict, what: string): void {
  expect(
    verdict.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`),
    `${what}: ${JSON.stringify(verdict.recovery)}`,
  ).toEqual([])
  expect(verdict.valid, what).toBe(true)
}

/** Verifies `g` under each of `runs` and holds it to no finding. */
export async function expectNoFinding(g: History, runs: (ArchiveSegments | undefined)[]): Promise<void> {
  const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
  for (const segments of runs) {
    const { verdict } = await verifyFile(g.db, keys, {
      recover: true,
      workers: 1,
      ...(segments ? { segments } : {}),
    })
    const what = `${g.log.join(', ')}${segments ? ' (with segments)' : ''}`
    expectValid(verdict, what)
    for (const r of verdict.recovered ?? [])
      if (r.key_index !== null)
        expect(['deleted', 'superseded'], `${what}: seq ${r.seq}`).not.toContain(r.status)
  }
}
