// One JSON Lines record (https://jsonlines.org): JSON.stringify escapes every C0 control, but writes
// NEL (U+0085) and the line and paragraph separators (U+2028, U+2029) as they are, and Python's
// str.splitlines() — and editors, and JavaScript's own line terminators — break a line there: a
// provider name holding one would split one record into two broken ones (or forge a second) for
// such a reader. It writes bidi overrides and isolates (UAX #9), zero-width characters, DEL and C1
// controls (ESC's 8-bit form CSI, U+009B) as they are too, which reorder or hide what `cat`, `less`
// or an editor shows of the record. Every code point printable() shows as a number is written as a
// \u escape instead (../../shared/printable.ts), which every JSON parser reads back the same.
import { jsonTextPrintable } from '../../shared/printable'

export function jsonLine(value: unknown): string {
  return jsonTextPrintable(JSON.stringify(value))
}
