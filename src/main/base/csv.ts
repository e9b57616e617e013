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
// Every other control (Unicode Cc: C0, DEL, C1; Excel's CLEAN() and most importers drop them) and
// every code point Unicode calls default-ignorable (UAX #44 Default_Ignorable_Code_Point: shown as
// nothing when not supported — combining grapheme joiner, variation selectors, Hangul fillers,
// tag characters) counts as white space too, and the width fold is applied after any length of
// such a start (300 spaces before `＝` hid it from a fold of the first 256 characters).
// A tab or a carriage return counts as a start after such a run too, when nothing an importer keeps
// stands before it: a cell `<U+200E>\tHYPERLINK(…)` or `<BOM>\r…` is `\t…`/`\r…` once the mark is
// dropped (round 9; white space before it is trimmed with it, so ` \tfoo` is not one).

// Graphic characters whose glyph is blank count as white space too (round 10): U+2800 BRAILLE
// PATTERN BLANK (So), U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (So) and U+16FE4 KHITAN SMALL SCRIPT
// FILLER (Mn; matched outside the class, being a combining mark) are neither White_Space, Cf nor
// default-ignorable, yet `⠀=HYPERLINK(…)` shows as a formula: one keystroke deleting the "space"
// the reader sees, or a cleaning step that maps blank glyphs to spaces, runs it. (The Hangul
// fillers U+115F, U+1160, U+3164, U+FFA0 are default-ignorable already.)

/** The characters a spreadsheet may read as the start of a formula (OWASP), after what an importer trims. */
export const FORMULA_START =
  /^(?:(?:[\s\0"\u00a0\ufeff\u2800\u{1d159}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]|\u{16fe4})*[=+\-@]|(?:[\0"\u00a0\ufeff\u2800\u{1d159}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]|\u{16fe4})*[\t\r])/u

/** What an importer may trim or drop before the first character it reads (FORMULA_START's run). */
const LEADING =
  /^(?:[\s\0"\u00a0\ufeff\u2800\u{1d159}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]|\u{16fe4})*/u

/** Whether a cell would start a formula, as written or once its compatibility forms are folded (NFKC). */
export function startsFormula(value: string): boolean {
  if (FORMULA_START.test(value)) return true
  // Only non-ASCII text can fold to something else; what follows the dropped start is enough to
  // look at (a fold may itself yield white space, hence the whole test again on the folded text).
  if (!/[^\p{ASCII}]/u.test(value)) return false
  const lead = LEADING.exec(value)![0].length
  return FORMULA_START.test(value.slice(0, lead + 256).normalize('NFKC'))
}

export function csvCell(value: string): string {
  const v = startsFormula(value) ? `'${value}` : value
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v
}
