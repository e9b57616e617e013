// A replay batch's summary counts each status per sealed model_version — the chain's text. Model
// names that are Object members (`__proto__`, `constructor`, `toString`, `hasOwnProperty`) were
// looked up on a plain object: `__proto__` and `constructor` read Object.prototype and Object, the
// counts were written onto them (every object of the server's process then had `matched`) and the
// model was missing from the summary. Generated over such names mixed with ordinary ones.
import { afterEach, describe, expect, it } from 'vitest'
import type { ReplayBatchItem, ReplayBatchStatus, ReplayCheck } from '../../../src/shared/replay-types'
import { BATCH_STATUSES, BatchTally } from '../../../src/main/replay/batch'
import { mulberry32 } from '../testing/prng'

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'gpt-4o', '(unknown)', '']

function item(line: number, status: ReplayBatchStatus, model: string | null): ReplayBatchItem {
  const check = {
    seq: line,
    result: {
      match: true,
      original_hash: null,
      replay_hash: 'h',
      deterministic: true,
      model_version: model,
      reason: null,
    },
  } as unknown as ReplayCheck
  return { line, name: `line ${line}`, seq: line, status, reason: null, check }
}

const polluted = (): string[] =>
  BATCH_STATUSES.filter(
    (s) => s in Object.prototype || Object.hasOwn(Object, s) || Object.hasOwn(Function.prototype, s),
  )

afterEach(() => {
  // Never leave a polluted prototype to the next test file's run in this worker.
  for (const s of BATCH_STATUSES) {
    delete (Object.prototype as Record<string, unknown>)[s]
    delete (Object as unknown as Record<string, unknown>)[s]
  }
})

describe('replay batch summary: model names that are Object members', () => {
  for (const seed of [1, 2, 3, 4])
    it(`seed ${seed}: every model's counts in the summary, nothing written on Object`, () => {
      const rnd = mulberry32(seed)
      const tally = new BatchTally()
      const want = new Map<string, Map<string, number>>()
      for (let line = 1; line <= 200; line++) {
        const model = rnd() < 0.1 ? null : NAMES[Math.floor(rnd() * NAMES.length)]!
        const status = BATCH_STATUSES.filter((s) => s !== 'bad_line' && s !== 'seq_missing')[
          Math.floor(rnd() * 6)
        ]!
        tally.add(item(line, status, model))
        const key = model ?? '(unknown)'
        const m = want.get(key) ?? new Map<string, number>()
        m.set(status, (m.get(status) ?? 0) + 1)
        want.set(key, m)
      }
      const s = tally.summary()
      expect(polluted()).toEqual([])
      expect(Object.keys(s.models).sort()).toEqual([...want.keys()].sort())
      for (const [model, counts] of want) {
        expect(Object.hasOwn(s.models, model), model).toBe(true)
        expect(Object.entries(s.models[model]!).sort(), model).toEqual([...counts].sort())
      }
      // As a transport carries it.
      expect(Object.keys(JSON.parse(JSON.stringify(s)).models).sort()).toEqual([...want.keys()].sort())
    })
})
