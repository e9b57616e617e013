// Text into HTML and SVG: every value of a report is data, escaped where it is written.
import { jsonDocumentPrintable, printable } from '../../../shared/printable'

/**
 * `v` as HTML text. A control, a bidirectional override or a zero-width character in a report's
 * value (a path, the tool's platform: text the report's writer chose) would make the page draw
 * other words than the JSON holds (U+202E reverses what follows it): each is drawn as its number.
 */
export function esc(v: unknown): string {
  return printable(String(v), '\n')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>` and `&` as \u escapes, so no
 * `</script>` or `<!--` can end or change the block; and every code point printable() numbers
 * (bidi overrides and isolates, U+2028/2029, C1 controls, zero-width characters, the BOM; UAX #9
 * §2) as a \u escape (RFC 8259 §7), as the report's JSON file writes them (jsonDocumentPrintable):
 * a provider name holding U+202E drew the page's source backwards in a viewer or an editor from it
 * on. JSON.parse reads it back exactly, so the report read from the page is the one signed.
 */
export function jsonForScript(value: unknown): string {
  return jsonDocumentPrintable(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
}

/** A number with thousands separators (the report's own numbers stay exact in the JSON). */
export function numText(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—'
  return Number.isInteger(n) ? n.toLocaleString('en-US') : String(n)
}

export function seqRange(a: number | null, b: number | null): string {
  if (a === null || b === null) return '—'
  return a === b ? `${a}` : `${a}–${b}`
}

/** `<span data-field="path">value</span>`: the page's numbers, marked with the JSON field they show. */
export function field(path: string, value: unknown, text?: string): string {
  const raw = value === null || value === undefined ? '' : String(value)
  return `<span data-field="${esc(path)}" data-value="${esc(raw)}">${esc(text ?? raw)}</span>`
}
