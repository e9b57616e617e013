// Text a client, the evidence or a crafted document chose (a path, a name, a value quoted in a
// message, a report's field), shown to a person: every code point that draws nothing, moves the
// cursor or changes how the rest reads is written as its number, `<U+XXXX>`. Controls (Unicode
// category Cc: C0, DEL, C1; ECMA-48 §5.2–5.3) include CR and LF, with which a path holding
// "\nVALID: forged" printed a line of its own under an error, and ESC, with which `ESC[8m` hides
// every later line (a FAILED verdict included); format characters (Cf) include the bidirectional
// overrides and isolates (UAX #9 §2: U+202E shows `exe.txt` as `txt.exe`), zero-width spaces, word
// joiners, the BOM and the tag characters; line and paragraph separators (Zl, Zp) break lines; a
// lone surrogate (Cs) is not text. An honest value holds none of them and is shown unchanged.
// Zero-width (non-)joiners are the exception among format characters: they join emoji sequences and
// Indic and Arabic letters in honest text, and reorder nothing.
const UNPRINTABLE = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

const number = (c: string): string => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`

/** `text` with each unprintable code point written as `<U+XXXX>` (those in `keep` left as they are). */
export function printable(text: string, keep = ''): string {
  return text.replace(UNPRINTABLE, (c) => (keep.includes(c) ? c : number(c)))
}

/**
 * `text` (lines a program writes, `\n`-ended) with the same code points shown as numbers except its
 * own line ends and tabs: for a stream whose every line is the program's, whatever a line quotes.
 */
export function printableLines(text: string): string {
  return printable(text, '\n\t')
}

/** Whether `text` holds a code point printable() shows as a number. */
export function hasUnprintable(text: string): boolean {
  UNPRINTABLE.lastIndex = 0
  const found = UNPRINTABLE.test(text)
  UNPRINTABLE.lastIndex = 0
  return found
}

/**
 * `value` as a JSON string on one line with every unprintable code point escaped as `\uXXXX`
 * (surrogate pairs of a lone half included): the exact text can be read back from it, as a record
 * of evidence needs (the Evidence line's path), where printable()'s numbers are for reading only.
 */
export function jsonPrintable(value: string): string {
  return jsonTextPrintable(JSON.stringify(value))
}

/**
 * JSON text (JSON.stringify's output) with every unprintable code point in its strings written as
 * `\uXXXX` (RFC 8259 §7), which every JSON reader reads back as the same string: JSON.stringify
 * escapes C0 controls only, and writes DEL, C1 controls, bidi overrides, zero-width characters and
 * line separators as they are, for an editor or terminal showing the file to draw or act on.
 */
export function jsonTextPrintable(json: string): string {
  return json.replace(UNPRINTABLE, (c) => {
    let out = ''
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`
    return out
  })
}

/**
 * A JSON document written for a person to open (a report): indented as JSON.stringify writes it,
 * every unprintable code point in its strings written as `\uXXXX` (jsonTextPrintable). A provider
 * name the audited party chose, holding U+202E or U+2028, reordered or broke the lines of the report
 * an editor or `cat` showed; the escapes read back as the same strings, so what is signed is unchanged.
 */
export function jsonDocumentPrintable(value: unknown): string {
  // A raw line feed is the indentation's (JSON.stringify writes one in a string as \n): kept.
  return JSON.stringify(value, null, 2).split('\n').map(jsonTextPrintable).join('\n')
}

/**
 * Characters a file name may not hold or that change what it names: path separators, the ones
 * Windows refuses (`<>:"|?*`, naming files in Win32 §"Naming Conventions"), and NUL.
 */
const NOT_IN_FILE_NAME = /[/\\<>:"|?*\0]/g

/** UTF-8 bytes of one code point (RFC 3629 §3). */
const utf8Bytes = (cp: number): number => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4)

/**
 * `text` (a name the evidence chose: the chain file's own) as part of a file name offered to a
 * person — a save dialog's default, a download's name: each unprintable code point (as printable()
 * numbers them) and each character a file system refuses becomes `_`, leading dots (a hidden file)
 * and trailing dots and spaces are dropped, and whole code points are kept up to `maxBytes` of
 * UTF-8, so the name with the tool's own suffix stays under NAME_MAX (255 bytes). A U+202E in a
 * chain named `report\u202Egpj.db` offered `report<RLO>gpj-view-….csv`, read as `…vsc.…-weiv-jpg`.
 */
export function fileNamePart(text: string, maxBytes = 120): string {
  const safe = text.replace(UNPRINTABLE, '_').replace(NOT_IN_FILE_NAME, '_').replace(/^\.+/, '')
  let out = ''
  let bytes = 0
  for (const c of safe) {
    bytes += utf8Bytes(c.codePointAt(0)!)
    if (bytes > maxBytes) break
    out += c
  }
  return out.replace(/[. ]+$/, '')
}
