// Payload drift (F12, reference §8) of one chain, for the drift panel: the engine's series job
// (startDriftSeries, polled and cancellable like every job), the panel's controls, and the series
// it answered. The request follows the view's filters (provider, model, typed time range), so the
// drift shown is the drift of the rows the auditor is looking at.
import type { ApiClient } from '../../../../shared/contract'
import type { DriftDimension, DriftSeries, DriftSeriesRequest } from '../../../../shared/drift-types'
import { jobEndSentence } from '../announce-text'
import { DEFAULT_DRIFT_WINDOW, DEFAULT_Z_THRESHOLD, driftSentence, groupKey } from '../drift'
import type { ViewState } from '../filter-state'
import { announcer } from './announcer'
import { JobRunner } from './job-runner'
import { Store } from './store'

export interface DriftControls {
  z_threshold: number
  window: number
  /** null: all six dimensions. */
  dimension: DriftDimension | null
}

export interface DriftState {
  controls: DriftControls
  series: DriftSeries | null
  /** The request the series answers (what the panel says it shows). */
  request: DriftSeriesRequest | null
  error: string | null
  /** The provider/model group the panel shows (groupKey), null: every group. */
  group: string | null
}

export const DEFAULT_DRIFT_CONTROLS: DriftControls = {
  z_threshold: DEFAULT_Z_THRESHOLD,
  window: DEFAULT_DRIFT_WINDOW,
  dimension: null,
}

/** The series request for these controls over the rows the view shows. */
export function driftRequest(
  c: DriftControls,
  view: Pick<ViewState, 'provider' | 'model' | 'range'>,
): DriftSeriesRequest {
  const req: DriftSeriesRequest = { window: c.window, z_threshold: c.z_threshold }
  if (c.dimension !== null) req.dimensions = [c.dimension]
  if (view.provider !== null) req.provider = view.provider
  if (view.model !== null) req.model = view.model
  if (view.range) {
    req.from_ns = view.range.from_ns
    req.to_ns = view.range.to_ns
  }
  return req
}

export class DriftStore extends Store<DriftState> {
  readonly job: JobRunner<DriftSeries>

  constructor(private readonly api: Pick<ApiClient, 'startDriftSeries' | 'jobStatus' | 'cancelJob'>) {
    super({ controls: DEFAULT_DRIFT_CONTROLS, series: null, request: null, error: null, group: null })
    this.job = new JobRunner(api)
  }

  dispose(): void {
    this.job.dispose()
  }

  readonly setGroup = (group: string | null): void => this.update({ group })

  /** Run the series with these controls over the view's rows; a run already going is left alone. */
  readonly run = async (
    controls: DriftControls,
    view: Pick<ViewState, 'provider' | 'model' | 'range'>,
  ): Promise<void> => {
    if (this.job.running) return
    const request = driftRequest(controls, view)
    this.update({ controls, error: null })
    const s = await this.job.run(() => this.api.startDriftSeries(request))
    const error = this.job.getState().error
    if (s) {
      const group = this.getState().group
      // The group filter is kept only while the new series still has that group.
      const keep = group !== null && s.groups.some((g) => groupKey(g) === group)
      this.update({ series: s, request, group: keep ? group : null })
      announcer.announce(driftSentence(s))
    } else if (error) {
      this.update({
        error: error === 'cancelled' ? 'cancelled: the series shown (if any) is the previous run' : error,
      })
      announcer.announce(jobEndSentence('Payload drift', error))
    }
  }

  readonly cancel = (): void => this.job.cancel()
}
