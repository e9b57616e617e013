// Data the Workspace derives from the engine: timelines, marks of flagged rows, the integrity
// window's halves, the time of rotation points. Each effect drops stale answers.
import { useEffect, useState } from 'react'
import type { ApiClient } from '../../../shared/contract'
import type { Timeline, TimelineRequest } from '../../../shared/chain-types'
import type { IntegrityRun } from '../../../shared/integrity-types'
import type { VerifyVerdict } from '../../../shared/verify-types'
import type { HalvesView } from '../components/ChartCard'
import type { Mark } from '../lib/chart-data'
import { errorMessage, nsToMs, parseNs } from '../lib/format'
import { anomalyMarks, halfRates, windowHalves } from '../lib/integrity'
import { findingLabel, findingsAt, rotationPoints } from '../lib/verdict'

export const MAX_MARKS = 1000

/** `stage`: asked again when it changes (a staged open's final stage brings providers and models). */
export function useTimeline(
  api: ApiClient,
  req: TimelineRequest,
  stage = '',
): { timeline: Timeline | null; error: string | null } {
  const [state, setState] = useState<{ timeline: Timeline | null; error: string | null }>({
    timeline: null,
    error: null,
  })
  const key = JSON.stringify(req)
  useEffect(() => {
    let live = true
    api
      .timeline(JSON.parse(key) as TimelineRequest)
      .then((t) => {
        if (live) setState({ timeline: t, error: null })
      })
      .catch((e: unknown) => {
        if (live) setState({ timeline: null, error: errorMessage(e) })
      })
    return () => {
      live = false
    }
  }, [api, key, stage])
  return state
}

/** Why a seq is flagged, from the verdict's findings and the integrity report's anomalies. */
export function flagReasons(
  seq: number,
  verdict: VerifyVerdict | null,
  integrity: IntegrityRun | null,
): { kinds: string[]; severity: 'verify' | 'integrity' } | null {
  const kinds: string[] = []
  let severity: 'verify' | 'integrity' = 'integrity'
  if (verdict) {
    // The keyless check's verdict (hmac_checked: false) marks its breaks as its own.
    const source = verdict.hmac_checked === false ? 'keyless check' : 'verify'
    for (const f of findingsAt(verdict.findings, seq)) {
      kinds.push(`${source}: ${findingLabel(f)}`)
      severity = 'verify'
    }
  }
  if (integrity)
    for (const a of anomalyMarks(integrity.report)) if (a.seq === seq) kinds.push(`integrity: ${a.detail}`)
  return kinds.length > 0 ? { kinds, severity } : null
}

/** The flagged rows (flagged_only listing), placed in time. */
export function useMarks(
  api: ApiClient,
  verdict: VerifyVerdict | null,
  integrity: IntegrityRun | null,
): { marks: Mark[]; total: number | null } {
  const [state, setState] = useState<{ marks: Mark[]; total: number | null }>({ marks: [], total: null })
  useEffect(() => {
    let live = true
    const hasAny =
      (verdict?.findings.length ?? 0) > 0 || (integrity ? anomalyMarks(integrity.report).length > 0 : false)
    if (!hasAny) {
      setState({ marks: [], total: verdict || integrity ? 0 : null })
      return
    }
    api
      .listEntries({ offset: 0, limit: MAX_MARKS, filter: { flagged_only: true } })
      .then((page) => {
        if (!live) return
        const marks: Mark[] = page.rows.map((r) => {
          const why = flagReasons(r.seq, verdict, integrity)
          return {
            seq: r.seq,
            ns: r.timestamp_ns,
            ms: nsToMs(r.timestamp_ns),
            kinds: why?.kinds ?? ['flagged'],
            severity: why?.severity ?? 'integrity',
          }
        })
        setState({ marks, total: page.total })
      })
      .catch(() => {
        if (live) setState({ marks: [], total: null })
      })
    return () => {
      live = false
    }
  }, [api, verdict, integrity])
  return state
}

async function tsAt(api: ApiClient, offset: number): Promise<bigint | null> {
  const p = await api.listEntries({ offset, limit: 1, sort: 'seq_asc' })
  return parseNs(p.rows[0]?.timestamp_ns)
}

/** The time span of the integrity window's two halves, and their rates. */
export function useHalves(
  api: ApiClient,
  integrity: IntegrityRun | null,
  totalEntries: number,
): HalvesView | null {
  const [halves, setHalves] = useState<HalvesView | null>(null)
  useEffect(() => {
    let live = true
    const w = integrity ? windowHalves(integrity.report, totalEntries) : null
    if (!w) {
      setHalves(null)
      return
    }
    Promise.all([
      tsAt(api, w.start),
      tsAt(api, w.start + w.mid - 1),
      tsAt(api, w.start + w.mid),
      tsAt(api, w.start + w.n - 1),
    ])
      .then(([a, b, c, d]) => {
        if (!live) return
        if (a === null || b === null || c === null || d === null) {
          setHalves(null)
          return
        }
        setHalves({
          baseline: { fromMs: Number(a / 1_000_000n), toMs: Number(b / 1_000_000n) },
          current: { fromMs: Number(c / 1_000_000n), toMs: Number(d / 1_000_000n) },
          rates: halfRates(w.n, a, b, c, d),
          window: w.n,
        })
      })
      .catch(() => {
        if (live) setHalves(null)
      })
    return () => {
      live = false
    }
  }, [api, integrity, totalEntries])
  return halves
}

/** Key rotation points (verify) and rotation boundaries (integrity), with their timestamps. */
export function useRotations(
  api: ApiClient,
  verdict: VerifyVerdict | null,
  integrity: IntegrityRun | null,
): { seq: number; ns: string }[] {
  const [out, setOut] = useState<{ seq: number; ns: string }[]>([])
  useEffect(() => {
    let live = true
    const seqs = new Set<number>()
    for (const r of verdict ? rotationPoints(verdict.key_segments) : []) seqs.add(r.seq)
    for (const b of integrity?.report.rotation_boundaries ?? []) seqs.add(b.seq)
    const list = [...seqs].slice(0, 20)
    if (list.length === 0) {
      setOut([])
      return
    }
    Promise.all(
      list.map(async (seq) => {
        const { index } = await api.locateEntry({ seq })
        if (index === null) return null
        const p = await api.listEntries({ offset: index, limit: 1 })
        const row = p.rows[0]
        return row ? { seq, ns: row.timestamp_ns } : null
      }),
    )
      .then((rs) => {
        if (live) setOut(rs.filter((r): r is { seq: number; ns: string } => r !== null))
      })
      .catch(() => {
        if (live) setOut([])
      })
    return () => {
      live = false
    }
  }, [api, verdict, integrity])
  return out
}
