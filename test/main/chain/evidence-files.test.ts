// The open step: real path before side-file names, one open per file, the descriptor checked, an
// open policy on every file, and a swap between check and open refused (issue 29 items 1 and 2).
import { execFileSync } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { openEvidence, readAt, type OpenPolicy } from '../../../src/main/chain/evidence-files'
import { openRace } from '../testing/open-race'
import { takeSnapshot } from '../../../src/main/chain/snapshot'
import { AuditError } from '../../../src/main/base/errors'
import { SMALL, writeChainFolder } from '../testing/exact-chains'

// The race: a file swapped between the open step's check and its open (../testing/open-race.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../testing/open-race')).raceFs(await importOriginal<typeof import('node:fs')>()),
)

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-open-step-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
afterEach(() => {
  openRace.between = null
})

let n = 0
const folder = (): string => {
  const d = join(scratch, `f${++n}`)
  mkdirSync(d)
  return d
}
const inside =
  (root: string): OpenPolicy =>
  (p) =>
    p.startsWith(root + sep)

function refusal(run: () => unknown): AuditError {
  try {
    run()
  } catch (e) {
    expect(e).toBeInstanceOf(AuditError)
    return e as AuditError
  }
  throw new Error('expected a refusal')
}

describe('the open step', () => {
  it('names side files from the real path: a linked chain.db uses its target’s -wal', () => {
    const real = writeChainFolder(folder(), { ...SMALL, wal: true, walRows: 10, walCommits: 2 })
    const other = folder()
    const link = join(other, 'chain.db')
    symlinkSync(real, link)
    writeFileSync(`${link}-wal`, 'a decoy beside the link')
    const files = openEvidence(link)
    try {
      expect(files.given).toBe(link)
      expect(files.db.name).toBe(real)
      expect(files.db.link).toBe(real)
      expect(files.wal?.name).toBe(`${real}-wal`)
      const head = Buffer.alloc(4)
      readAt(files.wal!.fd, head, 0, 4, 0)
      expect(head.readUInt32BE(0) & 0xfffffffe).toBe(0x377f0682)
    } finally {
      files.close()
    }
  })

  it('records a side file that is a link and where it leads (no policy: the desktop app)', async () => {
    const dir = folder()
    const chain = writeChainFolder(dir, { ...SMALL, wal: true, walRows: 8, walCommits: 1 })
    const elsewhere = folder()
    renameSync(`${chain}-wal`, join(elsewhere, 'kept-wal'))
    symlinkSync(join(elsewhere, 'kept-wal'), `${chain}-wal`)
    const files = openEvidence(chain)
    expect(files.wal?.link).toBe(join(elsewhere, 'kept-wal'))
    expect(files.wal?.real).toBe(join(elsewhere, 'kept-wal'))
    files.close()
    const snap = await takeSnapshot(chain, { tempRoot: scratch })
    try {
      expect(snap.evidence.wal).toMatchObject({
        path: `${chain}-wal`,
        link_target: join(elsewhere, 'kept-wal'),
      })
      expect(readFileSync(`${snap.dbPath}-wal`).equals(readFileSync(join(elsewhere, 'kept-wal')))).toBe(true)
    } finally {
      snap.dispose()
    }
  })

  it('refuses side files linked outside the open root, naming the file (issue 29 item 1)', async () => {
    const root = folder()
    const chain = writeChainFolder(join(root, 'case'), SMALL)
    const outside = folder()
    const secret = join(outside, 'secret.txt')
    writeFileSync(secret, 'not for the web client')
    for (const suffix of ['-wal', '-shm', '-journal']) {
      symlinkSync(secret, chain + suffix)
      const e = refusal(() => openEvidence(chain, { policy: inside(root) }))
      expect(e.message).toContain(`${chain}${suffix}`)
      expect(e.message).toContain('outside the open roots')
      expect(e.message).not.toContain('\n')
      // The copy path refuses it the same way: nothing of the secret is hashed or copied.
      await expect(takeSnapshot(chain, { tempRoot: scratch, policy: inside(root) })).rejects.toThrow(
        /outside the open roots/,
      )
      rmSync(chain + suffix)
    }
    // A link to nothing outside the root is refused as well; inside the root it is read.
    symlinkSync(join(outside, 'nothing'), `${chain}-wal`)
    expect(refusal(() => openEvidence(chain, { policy: inside(root) })).message).toContain('-wal')
    rmSync(`${chain}-wal`)
    const linked = join(root, 'a-link.db')
    symlinkSync(chain, linked)
    openEvidence(linked, { policy: inside(root) }).close()
    // The chain itself linked from inside the root to outside it.
    const away = join(outside, 'chain.db')
    copyFileSync(chain, away)
    const link = join(root, 'away.db')
    symlinkSync(away, link)
    // Refused in the words an absent path gets (issue 34): what the link resolves to outside the
    // root, and whether it exists, are not told.
    const refused = refusal(() => openEvidence(link, { policy: inside(root) }))
    expect(refused.message).not.toContain(away)
    const absent = join(outside, 'absent.db')
    expect(refusal(() => openEvidence(absent, { policy: inside(root) })).message).toBe(
      refused.message.replace(link, absent),
    )
  })

  it('refuses side files that are not regular files, without waiting on a FIFO', () => {
    const chain = writeChainFolder(folder(), SMALL)
    mkdirSync(`${chain}-wal`)
    expect(refusal(() => openEvidence(chain)).message).toMatch(/-wal is a directory/)
    rmSync(`${chain}-wal`, { recursive: true })
    execFileSync('mkfifo', [`${chain}-journal`])
    const e = refusal(() => openEvidence(chain))
    expect(e.code).toBe('not_a_file')
    expect(e.message).toMatch(/-journal is a FIFO/)
    rmSync(`${chain}-journal`)
    writeFileSync(`${chain}-wal`, '')
    const files = openEvidence(chain)
    expect(files.wal?.stat.size).toBe(0)
    files.close()
  })

  it('closes the race: a file swapped for a link between check and open is refused (issue 29 item 2)', () => {
    const root = folder()
    const chain = writeChainFolder(join(root, 'case'), SMALL)
    const outside = folder()
    const target = join(outside, 'chain.db')
    copyFileSync(chain, target)
    // The chain swapped for a symbolic link to a chain outside the root.
    openRace.between = (real) => {
      if (real !== chain) return
      renameSync(chain, `${chain}.orig`)
      symlinkSync(target, chain)
    }
    const e = refusal(() => openEvidence(chain, { policy: inside(root) }))
    expect(e.code).toBe('evidence_changed')
    expect(e.message).toContain('replaced while it was being opened')
    rmSync(chain)
    renameSync(`${chain}.orig`, chain)
    // A folder above swapped for a link to a folder outside, holding a chain of the same name.
    const caseDir = join(root, 'case')
    openRace.between = (real) => {
      if (real !== chain) return
      renameSync(caseDir, `${caseDir}.orig`)
      symlinkSync(outside, caseDir)
    }
    expect(refusal(() => openEvidence(chain, { policy: inside(root) })).code).toMatch(
      /evidence_changed|bad_argument/,
    )
    rmSync(caseDir)
    renameSync(`${caseDir}.orig`, caseDir)
    // The chain replaced by another regular file (another inode) between check and open.
    openRace.between = (real) => {
      if (real !== chain) return
      renameSync(chain, `${chain}.orig`)
      copyFileSync(target, chain)
    }
    expect(refusal(() => openEvidence(chain)).code).toBe('evidence_changed')
    openRace.between = null
    openEvidence(chain, { policy: inside(root) }).close()
  })

  it('holds descriptors until the last holder closes them', () => {
    const chain = writeChainFolder(folder(), SMALL)
    const files = openEvidence(chain)
    files.hold()
    files.close()
    expect(files.closed).toBe(false)
    const b = Buffer.alloc(16)
    expect(readAt(files.db.fd, b, 0, 16, 0)).toBe(16)
    files.close()
    expect(files.closed).toBe(true)
    files.close()
  })
})
