// One CSV cell as every CSV the project writes encodes it (RFC 4180 quoting), with formula
// injection neutralised as OWASP's "CSV Injection" page recommends: a cell beginning with `=`, `+`,
// `-`, `@`, a tab or a carriage return is prefixed with a single quote, so a spreadsheet shows it as
// text instead of running it (`=HYPERLINK(…)`, `@SUM(…)`, `+1+1` from a provider or model name any
// key-less edit of a body can plant). A negative number is shown as `'-5` for the same reason.
// Importers that trim a cell (Google Sheets' and LibreOffice's "trim spaces") or drop stray quotes
// would put the formula character first again, so one after leading white space (NBSP and BOM
// included), NUL (ASVS 1.2.10) or double quotes counts as a start too: ` =1+1`, `"=1+1`,
// `\u00a0@SUM(…)`. (Not after a single quote: a leading `'` is the neutraliser itself.)
// Invisible format characters (Unicode Cf: zero-width space, word joiner, direction marks) count as
// white space too: they draw nothing, and a cleaning step may drop them. And the compatibility forms
// of the four characters (fullwidth `＝＋－＠`, small `﹦﹢﹣﹫`, and the fullwidth quote and
// space before them) are read as what Unicode's NFKC makes of them: East Asian input methods type
// `＝` for `=`, and spreadsheets and importers that fold width would run the formula.

/** The characters a spreadsheet may read as the start of a formula (OWASP), after what an importer trims. */
export const FORMULA_START = /^(?:[\t\r\0]|[\s\0"\u00a0\ufeff\p{Cf}]*[=+\-@])/u

/** Whether a cell would start a formula, as written or once its compatibility forms are folded (NFKC). */
export function startsFormula(value: string): boolean {
  if (FORMULA_START.test(value)) return true
  // Only non-ASCII text can fold to something else; the start is enough to look at.
  return /[^\p{ASCII}]/u.test(value) && FORMULA_START.test(value.slice(0, 256).normalize('NFKC'))
}

export function csvCell(value: string): string {
  const v = startsFormula(value) ? `'${value}` : value
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v
}
