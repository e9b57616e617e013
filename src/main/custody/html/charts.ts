// The report's charts as inline SVG (no script, no external resource): where along the chain the
// findings and anomalies lie, the rate before and after the split, and the provider shares.
import type { IntegrityReport } from '../../../shared/integrity-types'
import type { AuditReport } from '../../../shared/report-types'
import { shiftsByDelta } from '../../../shared/provider-shifts'
import { esc } from './escape'

const W = 880
const PAD = 56

interface Mark {
  from: number
  to: number
  lane: number
  label: string
}

const LANES = ['verify findings', 'integrity anomalies', 'key rotation', 'replay checks'] as const
const COLORS = ['#b42318', '#b54708', '#5b21b6', '#1d4ed8'] as const

function marksOf(r: AuditReport): Mark[] {
  const out: Mark[] = []
  for (const f of r.verification?.verdict.findings ?? [])
    out.push({ from: f.from_seq, to: f.to_seq, lane: 0, label: `${f.kind} ${f.from_seq}-${f.to_seq}` })
  const i = r.integrity.report
  for (const g of i.sequence_gaps)
    out.push({ from: g.after_seq, to: g.before_seq, lane: 1, label: `gap after ${g.after_seq}` })
  for (const a of i.timestamp_anomalies)
    if (a.seq > 0) out.push({ from: a.seq, to: a.seq, lane: 1, label: `${a.type} at ${a.seq}` })
  for (const a of i.hash_anomalies)
    out.push({ from: a.seq, to: a.seq, lane: 1, label: `duplicate at ${a.seq}` })
  for (const b of i.rotation_boundaries)
    out.push({ from: b.seq, to: b.seq, lane: 2, label: `rotation at ${b.seq}` })
  for (const c of r.replay_checks)
    out.push({
      from: c.seq,
      to: c.seq,
      lane: 3,
      label: `replay ${c.result.match ? 'match' : 'mismatch'} at ${c.seq}`,
    })
  return out
}

/** Findings, anomalies, rotations and replay checks along the chain's seq axis. */
export function seqStrip(r: AuditReport): string {
  const first = r.chain.first_seq
  const last = r.chain.last_seq
  const laneH = 26
  const h = 30 + LANES.length * laneH + 24
  if (first === null || last === null) return '<p class="muted">The chain has no rows.</p>'
  const span = Math.max(1, last - first)
  const x = (s: number): number =>
    PAD + ((Math.min(Math.max(s, first), last) - first) / span) * (W - PAD - 16)
  const parts: string[] = [
    `<svg class="chart" data-chart="seq-strip" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="Findings along the chain, seq ${esc(first)} to ${esc(last)}">`,
    `<text x="${PAD}" y="16" class="axis">seq ${esc(first)}</text>`,
    `<text x="${W - 16}" y="16" class="axis" text-anchor="end">seq ${esc(last)}</text>`,
  ]
  LANES.forEach((name, lane) => {
    const y = 26 + lane * laneH
    parts.push(`<rect x="${PAD}" y="${y}" width="${W - PAD - 16}" height="${laneH - 8}" fill="#f2f4f7"/>`)
    parts.push(`<text x="4" y="${y + 13}" class="lane">${esc(name.split(' ')[0])}</text>`)
  })
  const marks = marksOf(r)
  for (const m of marks.slice(0, 2000)) {
    const y = 26 + m.lane * laneH
    const x0 = x(m.from)
    const w = Math.max(2, x(m.to) - x0)
    parts.push(
      `<rect x="${x0.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${laneH - 8}" fill="${COLORS[m.lane]}" data-mark="${esc(LANES[m.lane])}"><title>${esc(m.label)}</title></rect>`,
    )
  }
  const w0 = r.integrity.report.first_seq
  const w1 = r.integrity.report.last_seq
  if (w0 !== null && w1 !== null) {
    const yb = 26 + LANES.length * laneH
    parts.push(
      `<rect x="${x(w0).toFixed(1)}" y="${yb}" width="${Math.max(2, x(w1) - x(w0)).toFixed(1)}" height="6" fill="#667085"/>`,
      `<text x="${x(w0).toFixed(1)}" y="${yb + 18}" class="axis">integrity window seq ${esc(w0)}..${esc(w1)}</text>`,
    )
  }
  parts.push('</svg>')
  const legend = LANES.map(
    (n, i) =>
      `<span class="key"><span class="swatch" data-color="${i}"></span>${esc(n)} at a seq (${marks.filter((m) => m.lane === i).length})</span>`,
  ).join(' ')
  return `${parts.join('')}<p class="legend">${legend}</p>`
}

function bars(
  title: string,
  chart: string,
  rows: { label: string; values: [number, number] }[],
  unit: string,
  max: number,
): string {
  const rowH = 22
  const h = 24 + rows.length * rowH * 2 + 8
  const scale = (v: number): number => (max <= 0 ? 0 : (Math.max(0, v) / max) * (W - 260))
  const parts = [
    `<svg class="chart" data-chart="${esc(chart)}" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="${esc(title)}">`,
  ]
  rows.forEach((r, i) => {
    const y = 16 + i * rowH * 2
    parts.push(`<text x="4" y="${y + 12}" class="lane">${esc(r.label)}</text>`)
    r.values.forEach((v, j) => {
      const yy = y + j * (rowH - 4)
      parts.push(
        `<rect x="160" y="${yy}" width="${scale(v).toFixed(1)}" height="${rowH - 8}" fill="${j === 0 ? '#98a2b3' : '#b54708'}"/>`,
        `<text x="${(166 + scale(v)).toFixed(1)}" y="${yy + 11}" class="value">${j === 0 ? 'baseline' : 'current'} ${esc(v)}${esc(unit)}</text>`,
      )
    })
  })
  parts.push('</svg>')
  return parts.join('')
}

/** Rate before and after the split, when the rate detector fired. */
export function rateChart(i: IntegrityReport): string {
  const a = i.rate_anomalies[0]
  if (!a) return '<p class="muted">Rate: stable (no chart: the detector found no change).</p>'
  const max = Math.max(a.baseline_rate, a.current_rate)
  return bars(
    'Rate of calls',
    'rate',
    [{ label: 'calls per hour', values: [a.baseline_rate, a.current_rate] }],
    '/h',
    max,
  )
}

/** Provider shares before and after the split, when the provider-shift detector fired. */
export function providerChart(i: IntegrityReport): string {
  const s = i.provider_shift
  if (!s) return '<p class="muted">Provider distribution: stable (no chart: the detector found no shift).</p>'
  const rows = shiftsByDelta(s).map(([name, v]) => ({
    label: name,
    values: [v.baseline_pct, v.current_pct] as [number, number],
  }))
  return bars('Provider share', 'provider-share', rows, '%', 100)
}
