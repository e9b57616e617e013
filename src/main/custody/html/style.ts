// The HTML report's only style sheet (its hash is the page's CSP style-src): screen and print.
export const REPORT_CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #101828; margin: 0 auto; max-width: 960px; padding: 24px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; border-bottom: 1px solid #d0d5dd; padding-bottom: 4px; margin-top: 28px; }
h3 { font-size: 14px; margin: 18px 0 6px; }
header p { margin: 2px 0; }
.muted { color: #475467; }
.verdict { font-size: 16px; font-weight: 600; padding: 10px 12px; border-radius: 6px; border: 1px solid; }
.verdict.valid { background: #ecfdf3; border-color: #abefc6; color: #067647; }
.verdict.broken { background: #fef3f2; border-color: #fecdca; color: #b42318; }
.verdict.unverified { background: #fffaeb; border-color: #fedf89; color: #b54708; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dt { color: #475467; }
dd { margin: 0; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #eaecf0; vertical-align: top; }
th { background: #f9fafb; font-weight: 600; }
code, pre { font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
code.hash { word-break: break-all; }
pre { background: #f9fafb; border: 1px solid #eaecf0; padding: 8px; white-space: pre-wrap; word-break: break-all; }
svg.chart { max-width: 100%; height: auto; display: block; }
svg .axis, svg .lane, svg .value { font: 11px system-ui, sans-serif; fill: #344054; }
.legend .key { margin-right: 14px; white-space: nowrap; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: baseline; }
.swatch[data-color="0"] { background: #b42318; }
.swatch[data-color="1"] { background: #b54708; }
.swatch[data-color="2"] { background: #5b21b6; }
.swatch[data-color="3"] { background: #1d4ed8; }
footer { margin-top: 32px; color: #475467; font-size: 12px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  h2 { break-after: avoid; }
  section, table, svg, pre { break-inside: avoid; }
  tr { break-inside: avoid; }
  .verdict { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .swatch, svg { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  @page { margin: 16mm 14mm; }
}
`
