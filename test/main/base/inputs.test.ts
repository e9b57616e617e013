// An output a client names never lands on a file the same run reads as input (base/inputs.ts):
// generated over every input kind a writing command takes (the signing key, an HMAC key file, a
// segment and its side-file names, a replay file, the evidence by hard link) and every way of
// naming it (as given, through a symbolic link to it, a hard link of it, `dir/../name`, a linked
// folder). On the old code `report --segment seg.db -o seg.db` wrote the report over the segment
// and `-o` naming the --sign-key file destroyed the auditor's private key.
import {
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../../src/main/cli/main'
import { generateEd25519 } from '../../../src/main/custody/ed25519'
import { memoryIO } from '../testing/cli-io'
import { dbPath, SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const root = mkdtempSync(join(tmpdir(), 'bijotel-inputs-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const KEY = SECRETS['primary']!

interface Case {
  /** The input file the output must not land on, made in `dir`. */
  input: string
  /** The command's arguments naming the input (the output is added). */
  args: string[]
}

type Kind = 'sign-key' | 'secret-file' | 'segment' | 'segment-wal' | 'replay' | 'evidence-link'

function makeCase(kind: Kind, dir: string, db: string, command: 'report' | 'export'): Case {
  const keyArgs = ['--secret-hex', KEY]
  switch (kind) {
    case 'sign-key': {
      const input = join(dir, 'private.pem')
      writeFileSync(input, generateEd25519().privatePem, { mode: 0o600 })
      return { input, args: [...keyArgs, '--sign-key', input] }
    }
    case 'secret-file': {
      const input = join(dir, 'keys.txt')
      writeFileSync(input, `${KEY}\n`, { mode: 0o600 })
      return { input, args: ['--secret-file', input] }
    }
    case 'segment':
    case 'segment-wal': {
      const seg = join(dir, 'segment.db')
      copyFileSync(dbPath('clean'), seg)
      // The -wal name of a segment: a file made there would be part of the segment when next read.
      const input = kind === 'segment' ? seg : `${seg}-wal`
      if (kind === 'segment-wal') writeFileSync(input, '')
      return { input, args: [...keyArgs, '--segment', seg] }
    }
    case 'replay': {
      const input = join(dir, 'replay.txt')
      writeFileSync(input, 'a replayed output\n')
      return { input, args: [...keyArgs, '--replay', `1=${input}`] }
    }
    case 'evidence-link': {
      const input = join(dir, 'copy-of-evidence.db')
      linkSync(db, input)
      return { input, args: command === 'report' ? keyArgs : keyArgs }
    }
  }
}

/** The ways of naming `input` as the output. */
function namings(input: string, dir: string, pick: number): string[] {
  const via = join(dir, `via-${pick}`)
  mkdirSync(via)
  const names = [input, join(via, '..', basename(input))]
  const sym = join(via, 'sym')
  symlinkSync(input, sym)
  names.push(sym)
  const folderLink = join(dir, `folder-link-${pick}`)
  symlinkSync(dirname(input), folderLink)
  names.push(join(folderLink, basename(input)))
  try {
    const hard = join(via, 'hard')
    linkSync(input, hard)
    names.push(hard)
  } catch {
    // an -wal name that does not exist has no hard link
  }
  return names
}

const KINDS: { kind: Kind; commands: ('report' | 'export')[] }[] = [
  { kind: 'sign-key', commands: ['report', 'export'] },
  { kind: 'secret-file', commands: ['report', 'export'] },
  { kind: 'segment', commands: ['report'] },
  { kind: 'segment-wal', commands: ['report'] },
  { kind: 'replay', commands: ['report'] },
  { kind: 'evidence-link', commands: ['report', 'export'] },
]

describe('no output is written over a file the run reads', () => {
  const rnd = mulberry32(34)
  let n = 0
  for (const { kind, commands } of KINDS)
    for (const command of commands)
      it(`${command}: -o naming the ${kind} input, every way`, async () => {
        const dir = join(root, `case-${++n}`)
        mkdirSync(dir)
        const db = join(dir, 'chain.db')
        copyFileSync(dbPath('clean'), db)
        const c = makeCase(kind, dir, db, command)
        const before = readFileSync(c.input)
        for (const out of namings(c.input, dir, Math.floor(rnd() * 1e9))) {
          const html = command === 'report' && rnd() < 0.5 ? ['--format', 'html'] : []
          const io = memoryIO()
          const code = await runCli([command, '--db', db, ...c.args, ...html, '-o', out], io)
          expect(io.stderr, out).toMatch(/refusing to write the (report|export) over/)
          expect(code, out).toBe(2)
          expect(readFileSync(c.input).equals(before), out).toBe(true)
        }
        // The same command with a fresh output is written: the refusal is about the target only.
        const io = memoryIO()
        expect(
          await runCli([command, '--db', db, ...c.args, '-o', join(dir, 'fresh.out')], io),
          io.stderr,
        ).toBe(0)
      })
})

describe('no output replaces a device, a FIFO or a socket', () => {
  /** A special file at `path` of `kind`; false where this machine does not allow making one. */
  async function special(kind: string, path: string): Promise<(() => void) | false> {
    if (kind === 'fifo') return spawnSync('mkfifo', [path]).status === 0 && (() => {})
    if (kind === 'device') return spawnSync('mknod', [path, 'c', '1', '3']).status === 0 && (() => {})
    const server = createServer()
    await new Promise<void>((r) => server.listen(path, r))
    return () => server.close()
  }
  const rnd = mulberry32(2934)
  for (const kind of ['fifo', 'device', 'socket'])
    for (const command of ['report', 'export'] as const)
      it(`${command} -o naming a ${kind}, directly or through a link`, async (ctx) => {
        const dir = join(root, `special-${kind}-${command}`)
        mkdirSync(dir)
        const target = join(dir, `node-${Math.floor(rnd() * 1e9)}`)
        const done = await special(kind, target)
        if (done === false) return ctx.skip()
        try {
          const link = join(dir, 'link')
          symlinkSync(target, link)
          for (const out of [target, link]) {
            const io = memoryIO()
            const args = command === 'report' && rnd() < 0.5 ? ['--format', 'html'] : []
            const code = await runCli(
              [command, '--db', dbPath('clean'), '--secret-hex', KEY, ...args, '-o', out],
              io,
            )
            expect(io.stderr, out).toMatch(/not a regular file \(the write would replace it/)
            expect(code, out).toBe(2)
            const st = lstatSync(target)
            expect(st.isFile(), `${out}: the ${kind} was replaced by a regular file`).toBe(false)
          }
        } finally {
          done()
        }
      })
})
