// Python's `int(text)` (base 10), which is what argparse's `type=int` runs on an option's text
// (reference §4: `--seq`, `--window`, `--last`, `--limit`, `--offset`). CPython first maps every
// Unicode decimal digit (category Nd) to its ASCII digit and every Unicode white space to a space
// above ASCII (_PyUnicode_TransformDecimalAndSpaceToASCII), then reads: white space, an optional sign, digits
// with single underscores between them (PEP 515), white space. So `' 7'`, `'+7'`, `'1_000'`,
// `'007'`, `'١٠'` and `'１０'` are ints; `'10abc'`, `'1e3'`, `'1__0'`, `'_1'`, `'0x10'` and `''` are not.

/**
 * White space above ASCII as Python's `str.isspace()` has it (Py_UNICODE_ISSPACE): U+0085, U+00A0,
 * U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 (not U+FEFF, which JavaScript's `\s`
 * holds). ASCII characters pass unchanged, and the parser strips only C's white space, so the
 * separators U+001C-U+001F, white space to `str.isspace()`, make int() fail.
 */
const PY_SPACE = /[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u

/** Python's `str.isdecimal()` characters are Unicode's Nd: each run of ten holds the digits 0-9. */
const DECIMAL = /\p{Nd}/u

/** The ASCII digit of a decimal character: Nd digits come in runs of ten, 0 first (UAX #44). */
function digitOf(ch: string): string {
  const cp = ch.codePointAt(0)!
  // Back to the start of the contiguous digits: runs of ten may follow each other directly
  // (U+1D7CE..U+1D7FF holds five), each beginning with its 0, so the offset modulo 10 is the digit.
  let start = cp
  while (DECIMAL.test(String.fromCodePoint(start - 1))) start--
  return String((cp - start) % 10)
}

const MAX_STR_DIGITS = 4300

/**
 * CPython's first step of int() and float() on a text (_PyUnicode_TransformDecimalAndSpaceToASCII):
 * ASCII kept, white space above ASCII as ' ', decimal digits above ASCII as their ASCII digit; null
 * where another character above ASCII makes the conversion fail.
 */
export function pyAsciiNumberText(text: string): string | null {
  let ascii = ''
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x80) ascii += ch
    else if (PY_SPACE.test(ch)) ascii += ' '
    else if (DECIMAL.test(ch)) ascii += digitOf(ch)
    else return null
  }
  return ascii
}

/** The value Python's `int(text)` gives, or null where it raises ValueError. */
export function pyInt(text: string): bigint | null {
  const ascii = pyAsciiNumberText(text)
  if (ascii === null) return null
  const m = /^[\t\n\v\f\r ]*([+-]?)(\d(?:_?\d)*)[\t\n\v\f\r ]*$/.exec(ascii)
  if (m === null) return null
  const digits = m[2]!.replace(/_/g, '')
  // Python 3.11+ refuses to convert more than sys.int_info.default_max_str_digits digits (CVE-2020-10735).
  if (digits.length > MAX_STR_DIGITS) return null
  const n = BigInt(digits)
  return m[1] === '-' ? -n : n
}
