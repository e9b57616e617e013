// The sections of the HTML report: the verdict in words, the evidence, the signature, the findings
// with their rows, the integrity run, the replay checks, recovered rows and the coverage. Every
// number shown is marked with the JSON field it comes from (data-field), so a reader — or a test —
// can hold the page to the embedded JSON.
import type { AuditReport } from '../../../shared/report-types'
import { keysSentence } from '../../../shared/key-words'
import { integrityText } from '../../integrity/text'
import { describeFinding } from '../../verify/describe'
import { esc, field, numText, seqRange } from './escape'
import { providerChart, rateChart, seqStrip } from './charts'

export function verdictWords(r: AuditReport): { status: 'valid' | 'broken' | 'unverified'; words: string } {
  const v = r.verification
  if (!v) {
    return {
      status: 'unverified',
      words:
        'Not verified: no secret was given, so body hashes, links and HMACs were not checked. The integrity findings below are structural only.',
    }
  }
  const d = v.verdict
  const keys = `${v.keys.length} candidate key${v.keys.length === 1 ? '' : 's'}`
  if (d.valid) {
    return {
      status: 'valid',
      words: `The chain verifies. Every one of its ${numText(d.entries)} rows (seq ${seqRange(d.first_seq, d.last_seq)}) has its body hash, its link to the row before it and its HMAC reproduced with ${keys}; nothing was found.`,
    }
  }
  const first = d.findings.find((f) => f.from_seq === d.first_bad_seq) ?? d.findings[0]
  return {
    status: 'broken',
    words: `The chain is BROKEN: ${d.findings.length} finding${d.findings.length === 1 ? '' : 's'} in ${numText(d.entries)} rows, the first at seq ${d.first_bad_seq}${first ? `: ${describeFinding(first)}` : ''}.`,
  }
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${esc(title)}</h2>${body}</section>`
}

function table(head: string[], rows: string[][], cls = ''): string {
  if (rows.length === 0) return '<p class="muted">None.</p>'
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('')
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')
  return `<table class="${cls}"><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table>`
}

export function verdictSection(r: AuditReport): string {
  const { status, words } = verdictWords(r)
  const c = r.chain
  const facts = [
    ['Rows in the file', field('chain.entries', c.entries, numText(c.entries))],
    ['Seq range', `${field('chain.first_seq', c.first_seq)} – ${field('chain.last_seq', c.last_seq)}`],
  ]
  const v = r.verification?.verdict
  if (v) {
    facts.push(
      ['Verdict', field('verification.verdict.valid', v.valid, v.valid ? 'VALID' : 'BROKEN')],
      ['Findings', field('verification.verdict.findings.length', v.findings.length)],
      [
        'First bad seq',
        field(
          'verification.verdict.first_bad_seq',
          v.first_bad_seq,
          v.first_bad_seq === null ? '—' : String(v.first_bad_seq),
        ),
      ],
      ['Head HMAC', `<code>${field('verification.verdict.head_hmac', v.head_hmac)}</code>`],
      [
        'Keys (fingerprints)',
        r.verification!.keys.map((k) => `<code>${esc(k.fingerprint)}</code>`).join(', '),
      ],
    )
  }
  const dl = facts.map(([k, x]) => `<dt>${esc(k)}</dt><dd>${x}</dd>`).join('')
  return section(
    'verdict',
    'Verdict',
    `<p class="verdict ${status}" data-status="${status}">${esc(words)}</p><p>${esc(r.verification_note)}</p><dl>${dl}</dl>`,
  )
}

export function evidenceSection(r: AuditReport): string {
  const e = r.evidence
  const row = (name: string, path: string, f: NonNullable<typeof e.wal>): string[] => [
    esc(name),
    `<code>${esc(f.path)}</code>`,
    field(`${path}.size`, f.size, numText(f.size)),
    `<code class="hash">${field(`${path}.sha256`, f.sha256)}</code>`,
    esc(f.mtime),
  ]
  const rows = [row('chain file', 'evidence.db', e.db)]
  if (e.wal) rows.push(row('-wal', 'evidence.wal', e.wal))
  for (const [i, s] of e.side_files.entries()) rows.push(row('side file', `evidence.side_files.${i}`, s))
  const line = r.coverage
    ? `<p>Evidence line (for a case file):</p><pre class="line">${esc(r.coverage.line)}</pre>`
    : ''
  return section(
    'evidence',
    'Evidence',
    `${table(['File', 'Path', 'Bytes', 'SHA-256', 'Modified'], rows, 'evidence')}${e.wal ? '' : '<p class="muted">No -wal file with content beside the chain.</p>'}<p class="muted">${esc(e.method)}</p>${line}`,
  )
}

export function signatureSection(r: AuditReport): string {
  const s = r.signature
  const body = s
    ? `<p>Signed with Ed25519, key fingerprint <code>${field('signature.fingerprint', s.fingerprint)}</code>. The signature covers the RFC 8785 canonical form of the report without its signature block. This page cannot check it: run <code>bijotel report verify THIS_FILE --db chain.db --public-key PEM</code> with the signer's public key.</p>`
    : '<p>Not signed: nothing proves who wrote this report or that it is unchanged. <code>bijotel report verify</code> still re-checks every field against the chain.</p>'
  return section('signature', 'Signature', body)
}

export function findingsSection(r: AuditReport): string {
  const v = r.verification?.verdict
  if (!v)
    return section(
      'findings',
      'Findings',
      '<p class="muted">Not verified (no key given): no findings of the HMAC chain.</p>',
    )
  const rows = v.findings.map((f, i) => [
    field(`verification.verdict.findings.${i}.kind`, f.kind),
    field(`verification.verdict.findings.${i}.from_seq`, f.from_seq) +
      (f.to_seq !== f.from_seq ? `–${field(`verification.verdict.findings.${i}.to_seq`, f.to_seq)}` : ''),
    field(`verification.verdict.findings.${i}.count`, f.count, numText(f.count)),
    esc(describeFinding(f)),
  ])
  const segs = v.key_segments.map((s) => [
    esc(`key #${s.key_index + 1}`),
    esc(seqRange(s.from_seq, s.to_seq)),
    esc(numText(s.count)),
  ])
  const boundary = v.boundary
    ? `<p>Boundary: ${esc(v.boundary.detail)} (seq ${esc(v.boundary.seq)}).</p>`
    : ''
  // The words verify and the app say of the keys (a wrong key, a rotated key missing), and the
  // verdict's notices (rows before the live chain, the sqlite_sequence witness): a bare
  // hmac_mismatch 1-N must not read as tampering in the report either.
  const sentence = keysSentence(
    v,
    r.verification!.keys.map((k) => k.fingerprint),
  )
  const keys = sentence === null ? '' : `<p class="warn keys">Keys: ${esc(sentence)}</p>`
  const notices =
    (v.notices ?? []).length === 0
      ? ''
      : `<ul class="notices">${(v.notices ?? []).map((n) => `<li>Notice: ${esc(n)}</li>`).join('')}</ul>`
  return section(
    'findings',
    'Findings',
    `${table(['Kind', 'Seq', 'Rows', 'What it means'], rows, 'findings')}${boundary}${keys}${notices}<h3>Key segments</h3>${table(['Key', 'Seq', 'Rows'], segs)}`,
  )
}

export function integritySection(r: AuditReport): string {
  const run = r.integrity
  const i = run.report
  const facts = [
    ['Mode', esc(run.mode === 'all' ? 'whole chain' : `last ${run.window_requested ?? i.window} rows`)],
    ['Rows analysed', field('integrity.report.window', i.window, numText(i.window))],
    ['Anomalies', field('integrity.report.anomaly_count', i.anomaly_count)],
    ['Result', field('integrity.report.clean', i.clean, i.clean ? 'CLEAN' : 'ANOMALIES')],
  ]
  const dl = facts.map(([k, x]) => `<dt>${esc(k)}</dt><dd>${x}</dd>`).join('')
  const th = Object.entries(run.thresholds)
    .map(([k, v]) => `${esc(k)} ${esc(v)}`)
    .join(', ')
  return section(
    'integrity',
    'Integrity monitor',
    `<dl>${dl}</dl><p class="muted">Thresholds: ${th}. ${esc(run.rotation_note)}</p>` +
      `<h3>Along the chain</h3>${seqStrip(r)}<h3>Rate</h3>${rateChart(i)}<h3>Providers</h3>${providerChart(i)}` +
      `<h3>Detectors (as bijotel integrity prints them)</h3><pre>${esc(integrityText(run))}</pre>`,
  )
}

export function replaySection(r: AuditReport): string {
  const rows = r.replay_checks.map((c, i) => [
    field(`replay_checks.${i}.seq`, c.seq),
    field(`replay_checks.${i}.result.match`, c.result.match, c.result.match ? 'MATCH' : 'MISMATCH'),
    `<code class="hash">${esc(c.result.original_hash ?? '—')}</code>`,
    `<code class="hash">${esc(c.result.replay_hash)}</code>`,
    esc(c.result.reason ?? ''),
    esc(c.row_detail),
  ])
  // Each batch's checks made and not kept (round 11): the table lists only the kept ones.
  const batches = (Array.isArray(r.replay_batches) ? r.replay_batches : []).map(
    (b, i) =>
      `<li>Batch ${i + 1}: ${field(`replay_batches.${i}.kept`, b.kept)} checks listed` +
      (b.kept > 0 ? ` (rows ${b.first + 1}-${b.first + b.kept} above)` : '') +
      `; ${field(`replay_batches.${i}.not_kept`, b.not_kept)} more made and not kept` +
      (b.not_kept > 0 ? ' — not listed here, their results are not in this report' : '') +
      '</li>',
  )
  return section(
    'replay',
    'Replay checks',
    table(['Seq', 'Result', 'Sealed output hash', 'Replayed output hash', 'Reason', 'Row'], rows) +
      (batches.length > 0 ? `<ul class="batches">${batches.join('')}</ul>` : ''),
  )
}

/** Rows recovered from the files, when the report carries them (a `recovery` block). */
export function recoveredSection(r: AuditReport): string {
  const rec = (r as unknown as { recovery?: { rows?: unknown[]; summary?: { note?: unknown } } }).recovery
  const list = Array.isArray(rec?.rows) ? (rec.rows as Record<string, unknown>[]) : []
  const note = typeof rec?.summary?.note === 'string' ? `<p class="muted">${esc(rec.summary.note)}</p>` : ''
  const rows = list.map((x, i) => [
    field(`recovery.rows.${i}.seq`, x['seq']),
    esc(x['status']),
    `<code class="hash">${esc(x['hmac_hash'])}</code>`,
    esc(x['body_ok'] === null ? 'body lost' : x['body_ok'] ? 'body hash ok' : 'body hash wrong'),
    esc(x['key_index'] === null ? 'no key reproduces it' : `key #${Number(x['key_index']) + 1}`),
  ])
  return section(
    'recovered',
    'Recovered rows',
    rec
      ? `${note}${table(['Seq', 'Status', 'HMAC', 'Body', 'Proven'], rows)}`
      : '<p class="muted">This report carries no recovered rows.</p>',
  )
}

export function coverageSection(r: AuditReport): string {
  const c = r.coverage
  if (!c) return ''
  const rows = c.rows
  return section(
    'coverage',
    'What this report covered',
    `<p>${field('coverage.rows.count', rows.count, numText(rows.count))} rows, seq ${esc(seqRange(rows.first_seq, rows.last_seq))}, head HMAC <code class="hash">${esc(rows.head_hmac ?? '—')}</code>.</p>` +
      `<p>Digest of their (seq, hmac_hash): <code class="hash">${field('coverage.rows.digest', rows.digest)}</code> (${esc(rows.blocks.length)} blocks of ${esc(rows.block_size)} seq${rows.block_size === 1 ? '' : 's'}). Given to <code>bijotel verify --prior</code>, this report makes any of those rows that is later gone or changed a finding.</p>`,
  )
}
