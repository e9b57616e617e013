// `bijotel report --format html` (issue 25 item 5): the same report as one self-contained page — no
// script runs and nothing is fetched (a CSP meta tag allows only the page's own style sheet, by its
// SHA-256) — printable, with the JSON, the source of truth, embedded unchanged in
// `<script type="application/json" id="bijotel-report">` so `report verify` and `verify --prior`
// take the page as they take the JSON.
import { createHash } from 'node:crypto'
import { basename } from 'node:path'
import type { AuditReport } from '../../../shared/report-types'
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

/** The id of the `<script type="application/json">` block that holds the report. */
export const EMBED_ID = 'bijotel-report'

/** The Content-Security-Policy of the page: nothing but its own style sheet. */
export function reportCsp(css = REPORT_CSS): string {
  const hash = createHash('sha256').update(css, 'utf8').digest('base64')
  return `default-src 'none'; style-src 'sha256-${hash}'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'`
}

/**
 * How the page is checked, for a reader who is not a programmer. `report verify` refuses a page that
 * differs in one byte from the page drawn from its embedded report (report-file.ts), so these words
 * are true of every page it accepts.
 */
const FOOTER = [
  '<footer>',
  '<h2>How this page is checked</h2>',
  '<p>This page shows a report in data form (JSON) that is embedded in the file itself. When the report is signed, the signature covers that embedded report, not a printout or a screenshot of this page.</p>',
  '<p><code>bijotel report verify</code> (and <code>bijotel verify --prior</code>, and the app\u2019s \u201cCheck a report\u2026\u201d) accept this file only if it is, byte for byte, the page the program draws from the embedded report: a change to any word shown, to the layout, or to the page\u2019s security settings makes the check fail. The check then compares every field of the report with the chain file it describes, and checks the signature against the signer\u2019s public key.</p>',
  '<p>Only a check of the file itself, with the signer\u2019s public key obtained separately, shows who signed it and that it is unchanged. A copy of this page seen in a browser, printed, or sent as an image proves nothing by itself.</p>',
  '</footer>',
].join('')

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
    FOOTER,
    `<script type="application/json" id="${EMBED_ID}">`,
    jsonForScript(report),
    '</script>',
    '</body>',
    '</html>',
    '',
  ].join('\n')
}
