// The view export's file name is offered to the auditor (web mode: the download's name; the app:
// the save dialog's default) and is made from the chain file's own name, which the audited party
// chose. Chains copied under generated hostile names — bidi overrides and isolates (UAX #9: U+202E
// made `invoice<RLO>fdp.db` offer a name read as `…vsc.…-weiv-pdf`), controls, line separators,
// zero-width characters, separators and characters Windows refuses, leading dots, names near
// NAME_MAX (less a side file's suffix, which must fit too) — are exported; the offered name is held to an oracle written apart from the code.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../../src/main/handlers/dispatch'
import { createHandlers } from '../../../src/main/handlers/table'
import { AuditSession } from '../../../src/main/session/session'
import { dbPath } from '../testing/fixtures'
import { tempDir } from '../server/testkit'
import { mulberry32 as rng } from '../testing/prng'

const tmp = tempDir('bijotel-export-name-')
afterAll(() => tmp.cleanup())

const HOSTILE = [
  '\u202e',
  '\u202d',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
  '\n',
  '\r',
  '\t',
  '\u001b[8m',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u200b',
  '\u2060',
  '\ufeff',
  '\u{e0041}',
  '\\',
  '<',
  '>',
  ':',
  '"',
  '|',
  '?',
  '*',
  '..',
  '.',
]
const HONEST = ['chain', 'отчёт', 'العربية', 'audit 2026', 'a\u200db', 'émoji-👩\u200d💻', 'x']

/** Generated names: honest pieces with hostile ones between them, and long names of 1–4 byte code points. */
function names(count: number, seed: number): string[] {
  const r = rng(seed)
  const pick = <T>(a: T[]): T => a[Math.floor(r() * a.length)]!
  const out = [
    '.hidden',
    '..',
    'report\u202egpj',
    'a'.repeat(244),
    'é'.repeat(122),
    '😀'.repeat(61),
    '\u202e',
  ]
  while (out.length < count) {
    let s = ''
    const n = 1 + Math.floor(r() * 6)
    for (let i = 0; i < n; i++) s += r() < 0.5 ? pick(HOSTILE) : pick(HONEST)
    if (Buffer.byteLength(s + '.db-journal') <= 255 && s !== '' && s !== '.' && s !== '..') out.push(s)
  }
  return out
}

/** The oracle: what a name offered to a person must not hold (apart from printable.ts's regex). */
function wrongs(name: string): string[] {
  const out: string[] = []
  for (const c of name) {
    const cp = c.codePointAt(0)!
    const control = cp < 0x20 || (cp >= 0x7f && cp < 0xa0)
    const bidi =
      (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069) ||
      cp === 0x200e ||
      cp === 0x200f ||
      cp === 0x61c
    const invisible =
      [0x200b, 0x2060, 0xfeff, 0x2028, 0x2029].includes(cp) || (cp >= 0xe0000 && cp <= 0xe007f)
    if (control || bidi || invisible || '/\\<>:"|?*'.includes(c)) out.push(`U+${cp.toString(16)}`)
  }
  if (name.startsWith('.')) out.push('a hidden file')
  if (Buffer.byteLength(name) > 255) out.push(`${Buffer.byteLength(name)} bytes`)
  return out
}

async function offered(chainName: string): Promise<{ download: string; dialog: string }> {
  const path = join(tmp.dir, `${chainName}.db`)
  copyFileSync(dbPath('clean'), path)
  const session = new AuditSession({})
  let dialog = ''
  const platform = {
    pickSavePath: (name: string): Promise<string | null> => {
      dialog = name
      return Promise.resolve(null)
    },
  }
  try {
    await session.open(path)
    const ctx = { transport: 'ipc' as const, trusted: true }
    const web = await dispatch(createHandlers(session), 'exportView', { format: 'jsonl' }, ctx)
    if (!web.ok) throw new Error(web.error.error)
    const app = await dispatch(createHandlers(session, platform), 'saveViewExport', { format: 'csv' }, ctx)
    if (!app.ok) throw new Error(app.error.error)
    return { download: (web.value as { file_name: string }).file_name, dialog }
  } finally {
    session.dispose()
  }
}

describe('the view export offers a file name the chain cannot forge', () => {
  it('generated hostile chain names: no bidi, control, invisible or separator character, no hidden file, under NAME_MAX', async () => {
    const bad: string[] = []
    for (const n of names(80, 0xf11e)) {
      const { download, dialog } = await offered(n)
      expect(download).toMatch(/-view-\d{4}-\d\d-\d\dT[\d-]+Z\.jsonl$/)
      expect(dialog).toMatch(/-view-\d{4}-\d\d-\d\dT[\d-]+Z\.csv$/)
      for (const name of [download, dialog]) {
        const w = wrongs(name)
        if (w.length > 0) bad.push(`${JSON.stringify(n)} → ${JSON.stringify(name)}: ${w.join(', ')}`)
      }
    }
    expect(bad).toEqual([])
  }, 120_000)

  it('honest names are offered as they are', async () => {
    for (const n of HONEST) {
      const { download } = await offered(n)
      expect(download.startsWith(`${n}-view-`), download).toBe(true)
    }
  }, 60_000)
})
