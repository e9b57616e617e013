// How many row workers verify starts beside its evidence hash (issue 36): the cores but the one the
// hash holds, at least one, and BIJOTEL_WORKERS exactly as given (an operator's choice stands).
import { availableParallelism } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultWorkerCount, workersBeside } from '../../../src/main/base/workers'

const was = process.env['BIJOTEL_WORKERS']
afterEach(() => {
  if (was === undefined) delete process.env['BIJOTEL_WORKERS']
  else process.env['BIJOTEL_WORKERS'] = was
})

describe('workersBeside', () => {
  it('is the cores but one, never fewer than one', () => {
    delete process.env['BIJOTEL_WORKERS']
    const cores = Math.max(1, Math.min(8, availableParallelism()))
    expect(defaultWorkerCount()).toBe(cores)
    expect(workersBeside()).toBe(Math.max(1, cores - 1))
  })

  it('BIJOTEL_WORKERS as given; a value that is not a positive integer is ignored', () => {
    for (const [v, want] of [
      ['1', 1],
      ['2', 2],
      ['7', 7],
      ['99', 16],
    ] as const) {
      process.env['BIJOTEL_WORKERS'] = v
      expect(workersBeside()).toBe(want)
    }
    for (const v of ['0', '-2', '1.5', 'two', '']) {
      process.env['BIJOTEL_WORKERS'] = v
      expect(workersBeside()).toBe(Math.max(1, defaultWorkerCount() - 1))
    }
  })
})
