// Text a client or the evidence chose (a path, a name, a value quoted in a message), made safe to
// print on one line of a terminal: every character that moves the cursor or changes how the rest of
// the line reads is written as a JSON-style escape instead. A path holding "\nVALID" printed as it
// is forged a second line of output under an error; a right-to-left override (U+202E) reverses
// what follows it on screen. Escaped: the C0 controls and DEL (ECMA-48 §5.2, among them CR, LF and
// ESC), the C1 controls (ECMA-48 §5.3: NEL and an 8-bit CSI), the Unicode line and paragraph
// separators (U+2028, U+2029), and the bidirectional formatting characters (Unicode UAX #9 §2:
// U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). The escapes are valid in a JSON string, so
// a JSON-quoted word stays a JSON string.
// eslint-disable-next-line no-control-regex -- matching the controls is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** `text` with every unprintable character above escaped (`\n`, `\r`, `\t`, else `\uXXXX`). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const UNPRINTABLE_IN_LINES =
  // eslint-disable-next-line no-control-regex -- matching the controls is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` (lines a program writes, `\n`-ended) with the same characters escaped except its own line
 * ends and tabs: for a stream whose every line is the program's, whatever a line quotes.
 */
export function printableLines(text: string): string {
  return text.replace(
    UNPRINTABLE_IN_LINES,
    (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** Whether `text` holds a character printable() escapes. */
export function hasUnprintable(text: string): boolean {
  UNPRINTABLE.lastIndex = 0
  const found = UNPRINTABLE.test(text)
  UNPRINTABLE.lastIndex = 0
  return found
}
