// One CSV cell as every CSV the project writes encodes it (RFC 4180 quoting), with formula
// injection neutralised as OWASP's "CSV Injection" page recommends: a cell beginning with `=`, `+`,
// `-`, `@`, a tab or a carriage return is prefixed with a single quote, so a spreadsheet shows it as
// text instead of running it (`=HYPERLINK(…)`, `@SUM(…)`, `+1+1` from a provider or model name any
// key-less edit of a body can plant). A negative number is shown as `'-5` for the same reason.

/** The characters a spreadsheet may read as the start of a formula (OWASP). */
export const FORMULA_START = /^[=+\-@\t\r]/

export function csvCell(value: string): string {
  const v = FORMULA_START.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v
}
