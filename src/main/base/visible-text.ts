// Text from a document the audited party can craft (a report, a prior, an export), shown to a
// person: every code point that draws nothing or changes how the rest draws is shown as its number.
// Controls (Unicode category Cc: C0, DEL, C1) include the terminal's ESC, with which `ESC[8m` hides
// every later line (the "FAILED" verdict included) and `\r` or `\n` writes a line of the crafter's
// own ("Report verify: OK"); format characters (Cf) include the bidirectional overrides (U+202E
// shows `exe.txt` as `txt.exe`, UAX #9), zero-width spaces, word joiners, the BOM and the tag
// characters; line and paragraph separators (Zl, Zp) break lines; a lone surrogate (Cs) is not text.
// An honest value holds none of them, so it is shown unchanged.

// Zero-width (non-)joiners are the exception among format characters: they join emoji sequences and
// Indic and Arabic letters in honest text, and reorder nothing.
const INVISIBLE = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

/** `s` with each invisible or layout-changing code point written as `<U+XXXX>` (`keep`: left as is). */
export function visibleText(s: string, keep = ''): string {
  return s.replace(INVISIBLE, (c) =>
    keep.includes(c) ? c : `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`,
  )
}
