// `bijotel report --format html` (issue 25 item 5): the same report as one self-contained page — no
// script runs and nothing is fetched (a CSP meta tag allows only the page's own style sheet, by its
// SHA-256) — printable, with the JSON, the source of truth, embedded unchanged in
// `<script type="application/json" id="bijotel-report">` so `report verify` and `verify --prior`
// take the page as they take the JSON.
import { createHash } from 'node:crypto'
import { basename } from 'node:path'
import type { AuditReport } from '../../../shared/report-types'
import { EMBED_ID } from '../report-file'
import { esc, jsonForScript } from './escape'
import {
  coverageSection,
  evidenceSection,
  findingsSection,
  integritySection,
  recoveredSection,
  replaySection,
  signatureSection,
  verdictSection,
  verdictWords,
} from './sections'
import { REPORT_CSS } from './style'

/** The Content-Security-Policy of the page: nothing but its own style sheet. */
export function reportCsp(css = REPORT_CSS): string {
  const hash = createHash('sha256').update(css, 'utf8').digest('base64')
  return `default-src 'none'; style-src 'sha256-${hash}'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'`
}

export function renderReportHtml(report: AuditReport): string {
  const name = basename(report.evidence.db.path)
  const { status } = verdictWords(report)
  const title = `BIJOTEL audit report — ${name} — ${status === 'valid' ? 'VALID' : status === 'broken' ? 'BROKEN' : 'NOT VERIFIED'}`
  const t = report.tool
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(reportCsp())}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    `<header><h1>Audit report: ${esc(name)}</h1><p class="muted">Written ${esc(report.generated_at)} by ${esc(t.name)} ${esc(t.version)} (${esc(t.platform)}, Node ${esc(t.node)}), report schema ${esc(report.schema_version)}.</p></header>`,
    '<main>',
    verdictSection(report),
    evidenceSection(report),
    signatureSection(report),
    findingsSection(report),
    integritySection(report),
    replaySection(report),
    recoveredSection(report),
    coverageSection(report),
    '</main>',
    '<footer><p>The JSON report embedded in this page is the source of truth; this page only shows it. <code>bijotel report verify</code> and <code>bijotel verify --prior</code> read this file as they read the JSON.</p></footer>',
    `<script type="application/json" id="${EMBED_ID}">`,
    jsonForScript(report),
    '</script>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
}
