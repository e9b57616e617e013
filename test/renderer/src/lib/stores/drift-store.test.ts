// The drift store against a fake engine: the request follows the controls and the view's filters
// (provider, model, typed range), a finished series is kept and announced, the group filter survives
// a run only while the group still exists, and a cancelled run says so and keeps the last series.
// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import type { DriftSeries, DriftSeriesRequest } from '../../../../../src/shared/drift-types'
import type { JobStatus } from '../../../../../src/shared/job-types'
import { groupKey } from '../../../../../src/renderer/src/lib/drift'
import { initialView } from '../../../../../src/renderer/src/lib/filter-state'
import { announcer } from '../../../../../src/renderer/src/lib/stores/announcer'
import { DriftStore, driftRequest } from '../../../../../src/renderer/src/lib/stores/drift-store'
import { fakeApi } from '../../test/fake-api'

function status(state: JobStatus['state'], result: DriftSeries | null): JobStatus<DriftSeries> {
  return {
    id: 'd1',
    kind: 'drift',
    state,
    progress: { done: 0, total: 10, phase: 'reading payloads' },
    started_at: '',
    result,
    error: null,
  }
}

function series(groups: { provider: string; model: string | null }[], anomalies: number): DriftSeries {
  return {
    from_ns: '0',
    to_ns: '10',
    bucket_ns: '1',
    window: 50,
    z_threshold: 3,
    groups: groups.map((g) => ({ ...g, rows: 10, dimensions: [] })),
    anomaly_count: anomalies,
  }
}

describe('DriftStore', () => {
  it('asks for the controls over the view’s rows', () => {
    expect(driftRequest({ z_threshold: 3, window: 100, dimension: null }, initialView)).toEqual({
      window: 100,
      z_threshold: 3,
    })
    const view = { provider: 'openai', model: 'gpt-4o', range: { from_ns: '5', to_ns: '9' } }
    expect(driftRequest({ z_threshold: 2.5, window: 50, dimension: 'cost' }, view)).toEqual({
      window: 50,
      z_threshold: 2.5,
      dimensions: ['cost'],
      provider: 'openai',
      model: 'gpt-4o',
      from_ns: '5',
      to_ns: '9',
    })
  })

  it('keeps and announces a finished series; the group filter follows the groups', async () => {
    const answers = [
      series(
        [
          { provider: 'a', model: 'm' },
          { provider: 'b', model: null },
        ],
        4,
      ),
      series([{ provider: 'b', model: null }], 1),
    ]
    const asked: DriftSeriesRequest[] = []
    const { api } = fakeApi({
      overrides: {
        startDriftSeries: async (req) => (asked.push(req), status('running', null)),
        jobStatus: async () => status('done', answers[asked.length - 1]!),
      },
    })
    const store = new DriftStore(api)
    await store.run({ z_threshold: 3, window: 50, dimension: null }, initialView)
    expect(asked).toEqual([{ window: 50, z_threshold: 3 }])
    expect(store.getState().series).toBe(answers[0])
    expect(store.getState().request).toEqual({ window: 50, z_threshold: 3 })
    expect(announcer.getState().last?.text).toBe(
      'Payload drift finished: 4 anomalies in 2 provider/model groups.',
    )
    store.setGroup(groupKey({ provider: 'a', model: 'm' }))
    await store.run({ z_threshold: 4, window: 50, dimension: null }, initialView)
    expect(store.getState().controls.z_threshold).toBe(4)
    // Group a/m is gone from the new series: the filter is lifted.
    expect(store.getState().group).toBeNull()
    store.setGroup(groupKey({ provider: 'b', model: null }))
    await store.run({ z_threshold: 4, window: 50, dimension: null }, initialView)
    expect(store.getState().group).toBe(groupKey({ provider: 'b', model: null }))
    store.dispose()
  })

  it('a cancelled run says so and keeps the series it had', async () => {
    let cancelled = false
    let finish = true
    const first = series([{ provider: 'a', model: 'm' }], 0)
    const { api } = fakeApi({
      overrides: {
        startDriftSeries: async () => status(finish ? 'done' : 'running', finish ? first : null),
        jobStatus: async () => status(cancelled ? 'cancelled' : 'running', null),
        cancelJob: async () => ((cancelled = true), status('cancelled', null)),
      },
    })
    const store = new DriftStore(api)
    await store.run({ z_threshold: 3, window: 50, dimension: null }, initialView)
    expect(store.getState().series).toBe(first)
    finish = false
    const run = store.run({ z_threshold: 9, window: 50, dimension: null }, initialView)
    await new Promise((r) => setTimeout(r, 20))
    expect(store.job.running).toBe(true)
    // A second run asked for while one is going is not started.
    await store.run({ z_threshold: 1, window: 50, dimension: null }, initialView)
    store.cancel()
    await run
    expect(store.getState().error).toContain('cancelled')
    expect(store.getState().series).toBe(first)
    expect(announcer.getState().last?.text).toBe('Payload drift cancelled.')
    store.dispose()
  })
})
