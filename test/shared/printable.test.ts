// A name a client or the evidence chose never forges a line of output nor turns what follows it
// around: generated paths holding newlines, carriage returns, ESC sequences, C1 controls, the line
// separators and the bidi marks, given to every command that names a path in a message (the error
// for a missing file, a file that is no chain, a folder) and to the paths a command echoes (the
// Evidence line, "report written to"). On the old code `verify --db $'x\nVALID: forged'` printed
// "ERROR: DB not found: x" and then a line "VALID: forged" of its own.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/main/cli/main'
import { hasUnprintable, printable } from '../../src/shared/printable'
import { memoryIO } from '../main/testing/cli-io'
import { dbPath, SECRETS } from '../main/testing/fixtures'
import { mulberry32 } from '../main/testing/prng'

const root = mkdtempSync(join(tmpdir(), 'bijotel-printable-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const KEY = SECRETS['primary']!

const HOSTILE = [
  '\n',
  '\r',
  '\r\n',
  '\t',
  '\u001b[2K\u001b[1G',
  '\u001b]0;title\u0007',
  '\u0085',
  '\u009b2K',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u202d',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
  '\u007f',
  '\u0008',
]

/** A file name holding one to three hostile characters and a forged verdict line. */
function hostileName(rnd: () => number): string {
  let name = 'ev'
  const n = 1 + Math.floor(rnd() * 3)
  for (let i = 0; i < n; i++) name += HOSTILE[Math.floor(rnd() * HOSTILE.length)]! + 'VALID: forged'
  return name
}

/** Every line printed is one the command meant: nothing unprintable, no forged verdict line. */
function dirt(text: string, what: string): string[] {
  const found: string[] = []
  if (hasUnprintable(text.replace(/\n/g, ''))) found.push(`${what}: unprintable in ${JSON.stringify(text)}`)
  for (const line of text.split('\n'))
    if (line.startsWith('VALID')) found.push(`${what}: forged line ${JSON.stringify(line)}`)
  return found
}

describe('printable', () => {
  it('escapes every hostile character and nothing else', () => {
    for (const h of HOSTILE) expect(hasUnprintable(printable(`a${h}b`)), JSON.stringify(h)).toBe(false)
    expect(printable('plain/path é 漢字 "q" \\ ;=')).toBe('plain/path é 漢字 "q" \\ ;=')
    expect(printable('a\nb\u202ec')).toBe('a<U+000A>b<U+202E>c')
  })
})

describe('no command prints a line a path forged', () => {
  const rnd = mulberry32(29)
  const commands: ((p: string) => string[])[] = [
    (p) => ['verify', '--db', p, '--secret-hex', KEY],
    (p) => ['verify', '--keyless', '--db', p],
    (p) => ['integrity', '--db', p],
    (p) => ['recover', '--db', p, '--secret-hex', KEY],
    (p) => ['list', '--db', p],
    (p) => ['stats', '--db', p],
    (p) => ['inspect', '--db', p, '1'],
    (p) => ['regression', '--db', p],
    (p) => ['report', '--db', p, '--secret-hex', KEY, '-o', join(root, `r-${Math.floor(rnd() * 1e9)}.json`)],
    (p) => ['export', '--db', p, '--secret-hex', KEY, '-o', join(root, `e-${Math.floor(rnd() * 1e9)}.json`)],
    (p) => ['verify', '--db', dbPath('clean'), '--secret-file', p],
    (p) => ['verify', '--db', dbPath('clean'), '--secret-hex', KEY, '--prior', p],
    (p) => ['verify', '--db', dbPath('clean'), '--secret-hex', KEY, '--segment', p],
    (p) => ['replay', '--db', dbPath('clean'), '--secret-hex', KEY, '--seq', '1', '--output-file', p],
    (p) => [
      'report',
      '--db',
      dbPath('clean'),
      '--secret-hex',
      KEY,
      '--sign-key',
      p,
      '-o',
      join(root, 'x.json'),
    ],
    (p) => ['report', 'verify', p, '--db', dbPath('clean')],
    (p) => ['verify-export', p, '--secret-hex', KEY],
    (p) => ['verify-continuity', dbPath('clean'), p, '--secret-hex', KEY],
    (p) => ['verify-continuity', p, dbPath('clean')],
    (p) => ['report', '--db', dbPath('clean'), '--secret-hex', KEY, '-o', p],
  ]
  // What stands at the hostile path: nothing, a folder, a file that is no chain, or a real chain.
  const kinds = ['absent', 'folder', 'not-sqlite', 'chain'] as const
  for (const kind of kinds)
    it(`the path is ${kind}`, async () => {
      const found: string[] = []
      for (const [i, command] of commands.entries()) {
        const dir = join(root, `${kind}-${i}`)
        mkdirSync(dir)
        const p = join(dir, hostileName(rnd))
        if (kind === 'folder') mkdirSync(p)
        if (kind === 'not-sqlite') writeFileSync(p, 'not a chain\n')
        if (kind === 'chain') copyFileSync(dbPath('clean'), p)
        const argv = command(p)
        const io = memoryIO()
        await runCli(argv, io)
        const shown = `${argv[0]} ${argv[1]} (${i})`
        found.push(...dirt(io.stderr, `${shown} stderr`), ...dirt(io.stdout, `${shown} stdout`))
      }
      expect(found).toEqual([])
    })
})

describe('an export file cannot forge the verdict line', () => {
  it('a newline in its format, entries_count or segment fields is escaped', async () => {
    const dir = join(root, 'export-fields')
    mkdirSync(dir)
    const exported = join(dir, 'good.json')
    expect(
      await runCli(['export', '--db', dbPath('clean'), '--secret-hex', KEY, '-o', exported], memoryIO()),
    ).toBe(0)
    const doc = JSON.parse(readFileSync(exported, 'utf8')) as Record<string, unknown>
    const rnd = mulberry32(3429)
    const found: string[] = []
    for (const field of ['format', 'entries_count']) {
      for (let i = 0; i < 6; i++) {
        const forged = join(dir, `forged-${field}-${i}.json`)
        const h = HOSTILE[Math.floor(rnd() * HOSTILE.length)]!
        writeFileSync(forged, JSON.stringify({ ...doc, [field]: `x${h}Export VALID — HMAC chain verified.` }))
        for (const keys of [['--secret-hex', KEY], []]) {
          const io = memoryIO()
          await runCli(['verify-export', forged, ...keys], io)
          const lines = `${io.stdout}${io.stderr}`.split('\n')
          for (const line of lines)
            if (line.startsWith('Export VALID')) found.push(`${field} ${JSON.stringify(h)}: ${line}`)
          found.push(...dirt(io.stdout, `${field} stdout`), ...dirt(io.stderr, `${field} stderr`))
        }
      }
    }
    expect(found).toEqual([])
  })
})
