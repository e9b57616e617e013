// Verify's runs shared between the row workers and this thread (issue 36): once what kept this
// thread busy is done (the evidence hash), it takes the runs the workers have not, one at a time.
// Every run must be judged the same whichever thread took it — a tampered row in a run this thread
// took is found exactly as a worker finds it — and this thread never waits for `after` once the
// workers have taken every run.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Place, RowSource } from '../../../src/main/chain/source/row-source'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { runPartitionsOnWorkers } from '../../../src/main/verify/parallel'
import { verifyPart } from '../../../src/main/verify/part'
import type { PartitionResult } from '../../../src/main/verify/partition'
import { buildVerifyWorker, removeVerifyWorker, tempDir } from '../server/testkit'
import { KEY, SMALL, tamperRows, writeChainFolder } from '../testing/exact-chains'
import { readChainOnce } from '../testing/read-once'

const tmp = tempDir('bijotel-this-thread-runs-')
const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: KEY }]
let script = ''
let chain = ''

beforeAll(async () => {
  script = await buildVerifyWorker()
  chain = writeChainFolder(join(tmp.dir, 'chain'), { ...SMALL, rows: 3_000, bodyBytes: 300 })
  // Rows tampered across the chain (body, column, link), so that runs on either thread hold some.
  tamperRows(chain, { body: [7, 1_500, 2_950], name: [400, 2_100, 2_999], link: [1_000, 2_700] })
}, 120_000)

afterAll(async () => {
  await removeVerifyWorker()
  tmp.cleanup()
})

type Job = { place: Place; first: boolean }

/** The runs verified by the workers and this thread, with the jobs this thread took. */
async function shared(
  source: RowSource,
  jobs: Job[],
  after: Promise<unknown>,
): Promise<{ results: PartitionResult[]; local: number[] }> {
  const range = source.resolve(undefined)
  const local: number[] = []
  const results = await runPartitionsOnWorkers(
    script,
    source.handle().handle,
    jobs,
    range,
    keys,
    () => undefined,
    undefined,
    1,
    {
      after,
      run: (job) => {
        local.push(jobs.indexOf(job))
        return verifyPart(source, keys, range, job.place, { firstOrd: 0, first: job.first })
      },
    },
  )
  return { results, local }
}

/** Every run verified on this thread alone: what each must equal. */
function alone(source: RowSource, jobs: Job[]): PartitionResult[] {
  const range = source.resolve(undefined)
  return jobs.map((j) => verifyPart(source, keys, range, j.place, { firstOrd: 0, first: j.first }))
}

function jobsOf(source: RowSource, n: number): Job[] {
  const { place } = source.place(source.resolve(undefined))
  return source.split(place, n).map((p, i) => ({ place: p, first: i === 0 }))
}

describe('runs taken by this thread beside the workers', () => {
  it('judges every run as a worker does, tampered rows included, when this thread takes some', async () => {
    await readChainOnce(chain, async (source) => {
      expect(source.kind).toBe('direct')
      const jobs = jobsOf(source, 24)
      const want = alone(source, jobs)
      expect(want.some((r) => r.findings.length > 0)).toBe(true)
      const { results, local } = await shared(source, jobs, Promise.resolve())
      expect(local.length).toBeGreaterThan(0)
      expect(local.length).toBeLessThan(jobs.length)
      expect(results).toEqual(want)
      // The findings of the runs this thread took are there too (not only the workers').
      expect(local.some((i) => want[i]!.findings.length > 0 || i === 0)).toBe(true)
    })
  })

  it('does not wait for `after` once the workers have taken every run', async () => {
    await readChainOnce(chain, async (source) => {
      expect(source.kind).toBe('direct')
      const jobs = jobsOf(source, 6)
      const { results, local } = await shared(source, jobs, new Promise(() => undefined))
      expect(local).toEqual([])
      expect(results).toEqual(alone(source, jobs))
    })
  })

  it('takes runs when `after` fails (the hash ended on an error: the rows are still judged)', async () => {
    await readChainOnce(chain, async (source) => {
      expect(source.kind).toBe('direct')
      const jobs = jobsOf(source, 24)
      const failed = Promise.reject(new Error('hash stopped'))
      const { results, local } = await shared(source, jobs, failed)
      expect(local.length).toBeGreaterThan(0)
      expect(results).toEqual(alone(source, jobs))
    })
  })
})
