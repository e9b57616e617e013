// Issue 38: a crafted report whose members are of another kind than the comparison reads (null, a
// number, a string, an array, an object, a boolean, or absent, at every member down to three
// levels and in every replay check) is answered by `report verify` in one line — a refusal naming
// the member, or a comparison that fails — never "internal error", and never OK for a replay check
// that has nothing to compare.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkReport } from '../../../src/main/audit/check-report'
import { AuditError } from '../../../src/main/base/errors'
import { parseSecrets } from '../../../src/main/chain/keys'
import { scratchDir } from '../reliability/chainkit'
import { ensureBuilt, fixtureReport } from '../testing/cli'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'

const scratch = scratchDir('report-shape')
let before: Map<string, string>
let honest: Record<string, unknown>

beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
  const out = join(scratch.dir, 'clean.json')
  honest = fixtureReport('clean', [1], out)
  delete honest['signature']
})
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

const KINDS: unknown[] = [undefined, null, 7, 'x', [], {}, true, [{}]]

/** Paths of every member down to `depth` levels (array items by index). */
function paths(v: unknown, depth: number, at: (string | number)[] = []): (string | number)[][] {
  if (depth === 0 || typeof v !== 'object' || v === null) return []
  const keys: (string | number)[] = Array.isArray(v) ? v.map((_x, i) => i) : Object.keys(v)
  return keys.flatMap((k) => [[...at, k], ...paths((v as Record<string, unknown>)[k], depth - 1, [...at, k])])
}

function withValue(doc: unknown, path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(doc) as Record<string, unknown>
  let o = copy as Record<string | number, unknown>
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  if (value === undefined && !Array.isArray(o)) delete o[last]
  else o[last] = value
  return copy
}

describe('report verify reads only the kinds it compares', () => {
  it('every member set to every other kind: a one-line refusal or a failing comparison, never an internal error', async () => {
    const keys = parseSecrets(secretInputs(['primary']))
    const list = paths(honest, 3).filter(
      (p) => !(p[0] === 'coverage' && p[1] === 'rows' && p[2] === 'blocks'),
    )
    const replay = paths(honest['replay_checks'], 3, ['replay_checks'])
    let cases = 0
    for (const p of [...new Map([...list, ...replay].map((x) => [x.join('.'), x])).values()])
      for (const value of KINDS) {
        const doc = withValue(honest, p, value)
        try {
          const r = await checkReport({
            read: { doc, format: 'json' },
            reportPath: 'r',
            dbPath: dbPath('clean'),
            keys,
          })
          // Accepted only where nothing read it: then the change is to a member not compared.
          if (r.ok) expect(JSON.stringify(r.fields)).not.toMatch(/internal error|TypeError/)
          // A replay check without a result has nothing to compare: it must not read as reproducing.
          const noResult =
            p.join('.') === 'replay_checks.0.result' ||
            (p.join('.') === 'replay_checks.0' && value !== undefined)
          if (noResult) expect(r.ok, `${p.join('.')} = ${JSON.stringify(value)}`).toBe(false)
        } catch (e) {
          expect(e, `${p.join('.')} = ${JSON.stringify(value)}: ${String(e)}`).toBeInstanceOf(AuditError)
          expect((e as Error).message).not.toContain('\n')
        }
        cases++
      }
    expect(cases).toBeGreaterThan(300)
  }, 600_000)

  it('a replay check of a seq that is no row, with no result, is refused (it read REPRODUCES)', async () => {
    const keys = parseSecrets(secretInputs(['primary']))
    for (const seq of [999_999, -1, 0, 'x', 1.5]) {
      const doc = structuredClone(honest)
      doc['replay_checks'] = [{ seq }]
      await expect(
        checkReport({ read: { doc, format: 'json' }, reportPath: 'r', dbPath: dbPath('clean'), keys }),
      ).rejects.toThrow(/^r: not a report this version can check: replay_checks\[0\]\.(seq|result) is /)
    }
  })
})
