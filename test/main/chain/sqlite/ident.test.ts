// Which table is the chain and which column is which, as SQLite decides it (../../../../src/main/
// chain/sqlite/ident.ts): names match without regard to ASCII case, whatever their quoting. A
// generator writes the same sealed rows under schemas spelled otherwise — the table as CHAIN,
// "Chain", [cHaIn] or `chain` behind comments, each column in a random case and quoting, a trigger
// named chain stored before the table — with an unsealed column (span_kind or span_name) edited on
// a random row, and verify must give, on both readers, exactly the verdict of the same rows under
// the writer's own spelling. Before: a column declared `Span_Kind` read as absent (VALID over an
// edit SQLite and the reference read as column_mismatch), a table `CHAIN` had no chain table on
// the copy path, and a trigger `chain` made the chain "a trigger, not a table". A name only
// Unicode folding would match (KELVIN SIGN for k) is another column, as SQLite reads it. Generated
// columns (computed, never read) and a seq SQLite stores as a column despite `INTEGER PRIMARY KEY`
// spellings are refused in one line, never VALID. A side table (`cas`) spelled otherwise gives
// stats the figures of the writer's spelling (its columns read as absent before: no refs counted).
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identKey } from '../../../../src/main/chain/sqlite/ident'
import { CHAIN_TABLE_DDL } from '../../../../src/main/chain/schema'
import { Rng } from '../../reliability/chainkit'
import { BIN, ensureBuilt } from '../../testing/cli'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { WRITER_COLUMNS } from '../../testing/writer-columns'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-ident-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const COLUMNS = WRITER_COLUMNS
const ALL = ['seq', ...COLUMNS.map(([n]) => n)]

let base = ''
beforeAll(() => {
  ensureBuilt()
  base = writeChainFolder(join(root, 'base'), { ...SMALL, rows: 30 })
})

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!

function randomCase(rng: Rng, name: string): string {
  return [...name].map((c) => (rng.next() < 0.5 ? c.toUpperCase() : c)).join('')
}

function quoted(rng: Rng, name: string): string {
  return pick(rng, [name, `"${name}"`, `[${name}]`, `\`${name}\``])
}

/**
 * A file holding the base chain's rows under `ddl` (whose table SQLite names chain) with `edit`
 * run after them; `before` runs first (objects stored ahead of the table). Returns its path.
 */
function variant(
  name: string,
  ddl: string,
  names: readonly string[],
  edit: string,
  before = '',
  from: readonly string[] = ALL,
): string {
  const dir = join(root, name)
  mkdirSync(dir)
  const path = join(dir, 'chain.db')
  const src = new Database(base, { readonly: true })
  const db = new Database(path)
  try {
    if (before) db.exec(before)
    db.exec(ddl)
    const rows = src
      .prepare(`SELECT ${from.join(', ')} FROM chain ORDER BY seq`)
      .raw()
      .safeIntegers()
      .all()
    const ins = db.prepare(
      `INSERT INTO chain (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
    )
    db.transaction(() => {
      for (const r of rows as unknown[][]) ins.run(...r)
    })()
    if (edit) db.exec(edit)
  } finally {
    db.close()
    src.close()
  }
  return path
}

/** verify --json's verdict on `path` through one reader: exit code and what it found. */
function verdict(path: string, reader: 'direct' | 'sqlite') {
  const r = spawnSync(
    process.execPath,
    [BIN, 'verify', '--db', path, '--secret-hex', KEY_HEX, '--json', '--no-recover'],
    {
      encoding: 'utf8',
      env: { ...process.env, BIJOTEL_READER: reader === 'sqlite' ? 'sqlite' : '' },
      timeout: 60_000,
    },
  )
  if (r.status !== 0 && r.status !== 3) return { code: r.status, error: r.stderr.trim() }
  const v = JSON.parse(r.stdout) as Record<string, unknown>
  return { code: r.status, valid: v['valid'], entries: v['entries'], findings: v['findings'] }
}

describe('identKey folds ASCII letters only, as sqlite3StrICmp does', () => {
  it('is SQLite NOCASE on every code point of the Basic Multilingual Plane', () => {
    const db = new Database(':memory:')
    try {
      const same = db.prepare('SELECT ? = ? COLLATE NOCASE').pluck()
      for (let cp = 0; cp < 0x10000; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue
        const c = String.fromCodePoint(cp)
        const low = String.fromCodePoint(cp + 32)
        const folds = identKey(c) !== c
        // SQLite folds exactly the characters identKey folds, to the same character.
        expect(folds, `U+${cp.toString(16)}`).toBe(cp >= 0x41 && cp <= 0x5a)
        if (folds) expect(same.get(c, low)).toBe(1)
      }
      expect(identKey('span_\u212Aind')).not.toBe('span_kind')
    } finally {
      db.close()
    }
  })
})

describe('the chain table and its columns under other spellings read as SQLite reads them', () => {
  const rng = new Rng(60607)
  for (let k = 0; k < 10; k++) {
    const table = quoted(rng, randomCase(rng, 'chain'))
    // The last cases: span_kind declared with a KELVIN SIGN for its k (another column to SQLite).
    const kelvin = k >= 8 ? 'span_kind' : null
    const declared = COLUMNS.map(([n]) => (n === kelvin ? n.replace('k', '\u212A') : randomCase(rng, n)))
    const edited = pick(rng, ['span_kind', 'span_name'])
    const seq = 1 + Math.floor(rng.next() * 30)
    const comment = rng.next() < 0.5 ? '/* the chain */ ' : '-- x\n'
    const trigger = k % 3 === 0
    const cols = COLUMNS.map(([, type], i) => `${quoted(rng, declared[i]!)} ${type}`).join(', ')
    const seqName = quoted(rng, randomCase(rng, 'seq'))
    const ddl = `CREATE TABLE ${rng.next() < 0.3 ? 'IF NOT EXISTS ' : ''}${comment}${table} (${seqName} INTEGER PRIMARY KEY AUTOINCREMENT, ${cols})`
    const value = edited === 'span_kind' ? 'SERVER' : 'chat forged-model'
    it(`${ddl.replace(/\n/g, ' ')}; ${edited} of seq ${seq} edited${trigger ? '; a trigger named chain first' : ''}`, () => {
      const before = trigger
        ? 'CREATE TABLE other(x); CREATE TRIGGER chain AFTER INSERT ON other BEGIN SELECT 1; END;'
        : ''
      const editSql = (col: string) => `UPDATE chain SET "${col}" = '${value}' WHERE seq = ${seq}`
      const names = ['seq', ...declared]
      // Where the edited column is the Kelvin-named one, SQLite's span_* is absent: the control
      // names it otherwise too, and the edit lands on that other column in both.
      const ctrlNames = ['seq', ...COLUMNS.map(([n]) => (n === kelvin ? `${n}_other` : n))]
      const target = (ns: string[]) => ns[ALL.indexOf(edited)]!
      const path = variant(`case-${k}`, ddl, names, editSql(target(names)), before)
      const ctrlDdl = `CREATE TABLE chain (seq INTEGER PRIMARY KEY AUTOINCREMENT, ${COLUMNS.map(([, t], i) => `"${ctrlNames[i + 1]}" ${t}`).join(', ')})`
      const control = variant(`control-${k}`, ctrlDdl, ctrlNames, editSql(target(ctrlNames)))
      const want = verdict(control, 'sqlite')
      expect(want.code).toBe(kelvin === edited ? 0 : 3)
      for (const reader of ['direct', 'sqlite'] as const) expect(verdict(path, reader), reader).toEqual(want)
    }, 60_000)
  }
})

describe('columns SQLite computes or stores otherwise than their spelling says', () => {
  const cols = COLUMNS.map(([n, t]) => `${n} ${t}`)
  const body = (over: Record<string, string>) => COLUMNS.map(([n], i) => over[n] ?? cols[i]).join(', ')
  const cases: { name: string; ddl: string; names: string[]; edit: string; refusal: RegExp }[] = [
    ...(['VIRTUAL', 'STORED'] as const).flatMap((kind) =>
      (['span_kind', 'span_name'] as const).map((col) => ({
        name: `generated-${col}-${kind}`,
        ddl: `CREATE TABLE chain (seq INTEGER PRIMARY KEY AUTOINCREMENT, ${body({
          [col]: `${col} TEXT GENERATED ALWAYS AS (CASE WHEN seq = 9 THEN 'SERVER' ELSE 'x' END) ${kind}`,
        })})`,
        names: ALL.filter((n) => n !== col),
        edit: '',
        refusal: /computed \(generated\) columns.*span_/,
      })),
    ),
    ...['seq INTEGER PRIMARY KEY DESC', 'seq INT PRIMARY KEY', 'seq INTEGER, PRIMARY KEY(seq, span_id)'].map(
      (seqDecl, i) => ({
        name: `seq-stored-${i}`,
        ddl: seqDecl.includes('PRIMARY KEY(')
          ? `CREATE TABLE chain (seq INTEGER, ${body({})}, PRIMARY KEY(seq, span_id))`
          : `CREATE TABLE chain (${seqDecl}, ${body({})})`,
        names: ALL,
        edit: "UPDATE chain SET seq = '5x' WHERE seq = 5",
        refusal: /seq that is not an integer/,
      }),
    ),
  ]
  for (const c of cases) {
    it(`${c.name}: refused in one line on both readers, never a verdict`, () => {
      const path = variant(c.name, c.ddl, c.names, c.edit, '', c.names)
      for (const reader of ['direct', 'sqlite'] as const) {
        const v = verdict(path, reader)
        expect(v.code, `${reader}: ${JSON.stringify(v)}`).toBe(1)
        expect(v.error).toMatch(c.refusal)
        expect(v.error!.split('\n')).toHaveLength(1)
      }
    }, 60_000)
  }
})

describe('a side table and its columns under other spellings', () => {
  const spellings = ['cas', 'CAS', '"Cas"', '[cAS]']
  // With a DEFAULT the direct reader leaves the table to SQLite; without, it reads it itself; a
  // ref_count declared INTEGER PRIMARY KEY DESC (behind a comment) is a stored column, not the rowid.
  const refDecls = ['INTEGER NOT NULL DEFAULT 1', 'INTEGER NOT NULL', 'INTEGER PRIMARY/**/KEY DESC']
  const rng = new Rng(60631)
  const stats = (table: string, cols: string[], refDecl: string, reader: 'direct' | 'sqlite'): string => {
    const dir = mkdtempSync(join(root, 'cas-'))
    const path = join(dir, 'chain.db')
    const db = new Database(path)
    db.exec(`CREATE TABLE ${table} (${cols[0]} TEXT, ${cols[1]} BLOB NOT NULL,
             ${cols[2]} INTEGER NOT NULL, ${cols[3]} ${refDecl})`)
    db.exec(CHAIN_TABLE_DDL)
    const put = db.prepare(`INSERT INTO ${table} VALUES (?, ?, ?, ?)`)
    for (let i = 0; i < 7; i++) put.run(`h${i}`, Buffer.alloc(20 + i), i, 10 + i)
    db.close()
    const r = spawnSync(process.execPath, [BIN, 'stats', '--db', path], {
      encoding: 'utf8',
      env: { ...process.env, BIJOTEL_READER: reader === 'sqlite' ? 'sqlite' : '' },
    })
    expect(r.status, r.stderr).toBe(0)
    return r.stdout.slice(r.stdout.indexOf('CAS'))
  }
  for (const refDecl of refDecls)
    it(`ref_count ${refDecl}: stats reads the writer's spelling's CAS figures, on both readers`, () => {
      const writer = ['body_hash', 'body', 'first_seen_ns', 'ref_count']
      const want = stats('cas', writer, refDecl, 'sqlite')
      expect(want).toMatch(/Total refs:\s+91/)
      for (const table of spellings) {
        const cols = writer.map((c) => quoted(rng, randomCase(rng, c)))
        for (const reader of ['direct', 'sqlite'] as const)
          expect(stats(table, cols, refDecl, reader), `${reader}: ${table} ${cols.join()}`).toBe(want)
      }
      // The writer's spelling itself, through the direct reader.
      expect(stats('cas', writer, refDecl, 'direct')).toBe(want)
    }, 120_000)
})
