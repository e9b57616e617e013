// Guard (issue 34): a file whose path a client names is opened in one place only,
// src/main/base/client-file.ts (resolved by the kernel, opened once with O_NOFOLLOW|O_NONBLOCK, the
// descriptor checked, read through it), and the chain's open step built on it. Anywhere else in
// src/main, a call that opens, reads or stats a file by NAME must be on the list below, with the
// reason its path is not a client's; a new one fails here until it goes through readClientFile or
// is listed with its reason.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '..', '..')
const SRC = join(ROOT, 'src', 'main')

/** By-name file access: opening, reading or stat-ing a path (a descriptor's fstat is not one). */
const BY_NAME = /(?<![A-Za-z])(readFileSync|statSync|openSync|createReadStream|readFile)\(/g

/** file → [what is allowed there, why its path is not a client's]. */
const ALLOWED: Record<string, [RegExp, string][]> = {
  'base/client-file.ts': [[/./, 'the one way: resolve, open once, check the descriptor']],
  'base/inputs.ts': [
    [/st = statSync\(target\)/, 'an output target compared with the inputs read (dev/inode); reads nothing'],
  ],
  'chain/evidence-files.ts': [
    [/statSync\(name\)/, 'unchangedFiles: compares a name with the descriptor opened; reads nothing'],
  ],
  'cli/commands/replay-batch.ts': [
    [
      /createReadStream\('', \{ fd, start: 0, autoClose: false \}\)/,
      'the --batch file streamed, each read from its start, through the one descriptor openClientFile opened and checked (no name)',
    ],
  ],
  'handlers/open-refusal.ts': [
    [
      /statSync\(real\)\.isDirectory\(\)/,
      'the words of a refusal only (folder or file); nothing is read, the open step opens once under the policy',
    ],
  ],
  'chain/reader.ts': [[/openSync\(path, 'r'\)/, 'inspectHeader: the private copy, a file this process made']],
  'chain/plain-view.ts': [
    [
      /statSync\(copyPath\)/,
      'the private copy, compared with the evidence (dev/inode) before a view is written beside it',
    ],
  ],
  'recovery/declined.ts': [
    [
      /openSync\(copyPath, 'r'\)/,
      'the private copy’s header (page size, page count): a file this process made',
    ],
  ],
  'chain/copy-hashed.ts': [
    [
      /openSync\(dst, 'wx', 0o600\)/,
      'the private copy, created new (wx) in the folder this process made; the evidence is read by its descriptor',
    ],
  ],
  'chain/snapshot.ts': [
    [/fs\.openSync\(workerData\.path/, 'the hash worker: the private copy by path'],
    [/openSync\(path, fsc\.O_RDONLY\)/, 'the addon hash of our own private copy, by path (never evidence)'],
  ],
  'server/static.ts': [
    [
      /fsp\.readFile\(file\)/,
      'the built renderer (--static-dir, the auditor’s), contained by its own realpath check',
    ],
  ],
  'handlers/tools.ts': [
    [/readFileSync\(path, 'utf8'\)/, 'a reference export this call wrote in its own mkdtemp folder'],
  ],
  'app/recent.ts': [[/readFileSync\(file, 'utf8'\)/, 'the app’s own recent.json in userData']],
  'cli/index.ts': [[/readFileSync\('\/proc\/self\/status'/, 'this process’s peak memory']],
  'cli/argv-bytes.ts': [
    [/readFileSync\('\/proc\/self\/cmdline'\)/, 'this process’s own arguments as bytes (the kernel’s copy)'],
  ],
  'cli/commands/report.ts': [[/statSync\(target\)/, 'the auditor’s own -o target: is it a folder (no read)']],
  'export/view-export.ts': [[/openSync\(tmp, 'wx'/, 'creates a new temporary file (O_EXCL); reads nothing']],
  'export/output-file.ts': [
    [/openSync\(this\.tmp, 'wx'/, 'creates a new temporary file (O_EXCL); reads nothing'],
    [
      /statSync\(p\) : lstatSync\(p\)/,
      'an output target compared with the evidence (dev/inode); reads nothing',
    ],
  ],
  'writer/demo.ts': [[/statSync\(opts\.dbPath\)/, 'the demo chain this command is writing']],
  'writer/chain-writer.ts': [
    [/openSync\(path, 'wx'/, 'creates the chain it writes (O_EXCL)'],
    [/statSync\(path\)/, 'the chain it writes'],
  ],
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** Every by-name access in src/main not on the list, as `file:line: text`. */
function unlisted(): string[] {
  const out: string[] = []
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file).split('\\').join('/')
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!BY_NAME.test(line)) return
        BY_NAME.lastIndex = 0
        const ok = (ALLOWED[rel] ?? []).some(([re]) => re.test(line))
        if (!ok) out.push(`${rel}:${i + 1}: ${line.trim()}`)
      })
    BY_NAME.lastIndex = 0
  }
  return out
}

describe('client-named paths are opened in one place', () => {
  it('the pattern finds each way of opening by name', () => {
    for (const s of [
      'readFileSync(p)',
      'fs.statSync(p)',
      'openSync(p, "r")',
      'createReadStream(p)',
      'await fsp.readFile(p)',
    ]) {
      BY_NAME.lastIndex = 0
      expect(BY_NAME.test(s), s).toBe(true)
    }
    for (const s of ['fstatSync(fd)', 'lstatSync(p)', 'readClientFile(p, o)']) {
      BY_NAME.lastIndex = 0
      expect(BY_NAME.test(s), s).toBe(false)
    }
    BY_NAME.lastIndex = 0
  })

  it('nothing in src/main opens, reads or stats a file by name outside the list', () => {
    expect(unlisted()).toEqual([])
  })

  it('every entry of the list still matches something (no stale reason)', () => {
    for (const [rel, rules] of Object.entries(ALLOWED)) {
      const text = readFileSync(join(SRC, rel), 'utf8')
      for (const [re, why] of rules) expect(re.test(text), `${rel}: ${why}`).toBe(true)
    }
  })
})
