// An output path a client names (`report -o`, `export -o`, `recover --out`, the desktop save) is
// checked against the evidence under the name the kernel gives it — `..` after a link taken from
// the link's target — and written under that same name. A lexical check let
// `report -o out/link/../ev/chain.db-wal` pass (lexically another folder) and the rename put the
// report in the evidence's folder as its -wal or -journal.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeTarget } from '../../../src/main/base/client-file'
import { checkOutputPath } from '../../../src/main/cli/commands/report'
import { checkOutputTarget } from '../../../src/main/export/output-file'
import { checkOutDir } from '../../../src/main/recovery/case-file'

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-write-target-')))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const ev = join(dir, 'ev')
const db = join(ev, 'chain.db')
mkdirSync(ev)
writeFileSync(db, 'x')
mkdirSync(join(dir, 'other', 'ev'), { recursive: true }) // the lexical decoy of `other/evl/../ev`
mkdirSync(join(dir, 'other', 'deep', 'ev'), { recursive: true })
symlinkSync(ev, join(dir, 'other', 'evl'))
symlinkSync(join(dir, 'other', 'evl'), join(dir, 'other', 'deep', 'l2'))

/** Ways of naming the evidence's folder through a link and `..`. */
const FOLDERS = [
  `${dir}/other/evl/../ev`,
  `${dir}/other/evl/./../ev`,
  `${dir}/other/deep/l2/../ev`,
  `${dir}/other/evl/../other/evl`,
  `${dir}/other/evl/../ev/../ev`,
]

describe('an output path is checked and written under the kernel’s name', () => {
  it('writeTarget names the file the kernel would write', () => {
    for (const [i, f] of FOLDERS.entries()) {
      const p = `${f}/probe-${i}.txt`
      writeFileSync(p, `probe ${i}`) // the kernel's own resolution
      expect(readFileSync(writeTarget(p), 'utf8')).toBe(`probe ${i}`)
      rmSync(writeTarget(p))
      expect(writeTarget(`${f}/absent-${i}`)).toBe(join(ev, `absent-${i}`))
    }
  })

  it('every side-file name of the evidence, however reached, is refused by all three checks', () => {
    for (const f of FOLDERS)
      for (const suffix of ['', '-wal', '-shm', '-journal']) {
        const out = `${f}/chain.db${suffix}`
        expect(() => checkOutputPath(out, db), out).toThrow(/refusing to write the report over the evidence/)
        expect(() => checkOutputTarget(out, db), out).toThrow(
          /refusing to write the export over the evidence/,
        )
      }
  })

  it('recover --out in the evidence folder, however reached, is refused', () => {
    for (const f of FOLDERS)
      for (const out of [f, `${f}/new`, `${f}/a/b/../c`])
        expect(() => checkOutDir(out, db), out).toThrow(/refusing to write into the evidence's folder/)
  })
})
