// Key files (`--secret-file`, `serve --api-key-file`) that are not plain files: a named FIFO that no
// process writes to is refused in under a second (it hung the CLI, and `serve` before it listened,
// until a writer came — forever); a FIFO whose writer is there, or comes within the grace, or a
// shell's pipe (`<(…)`), is still read, however slowly its bytes come; /dev/zero and a directory are
// one line each.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readBounded, readOneLineSecret } from '../../../src/main/cli/secret-sources'

const dir = mkdtempSync(join(tmpdir(), 'bijotel-secret-fifo-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) c.kill()
  rmSync(dir, { recursive: true, force: true })
})

let made = 0
function fifo(): string {
  const p = join(dir, `f${made++}`)
  expect(spawnSync('mkfifo', [p]).status).toBe(0)
  return p
}
/** A writer process: opens the FIFO (blocking until we read) after `openAfter` ms, writes `text` after `writeAfter` ms. */
function writer(p: string, text: string, openAfter: number, writeAfter: number): void {
  const script = `sleep ${openAfter / 1000}; exec 3>'${p}'; sleep ${writeAfter / 1000}; printf '%s' '${text}' >&3`
  children.push(spawn('sh', ['-c', script], { stdio: 'ignore' }))
}
const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

describe('key files that are not plain files', () => {
  it('a FIFO no process writes to: refused in under a second, for both readers', () => {
    for (const read of [readBounded, readOneLineSecret]) {
      const t0 = Date.now()
      expect(() => read(fifo(), '--secret-file')).toThrow(/a FIFO that no process writes to/)
      expect(Date.now() - t0).toBeLessThan(1000)
    }
  })

  it('a FIFO whose writer is blocked in its open, or writes slowly, is read whole', () => {
    for (const [openAfter, writeAfter] of [
      [0, 0],
      [0, 300],
      [100, 0],
      [200, 700],
    ] as const) {
      const p = fifo()
      writer(p, 'abcdef0123456789abcdef0123456789', openAfter, writeAfter)
      if (openAfter === 0) sleep(150) // the writer is then already waiting in its open
      expect(readOneLineSecret(p, '--api-key-file')).toBe('abcdef0123456789abcdef0123456789')
    }
  })

  it('a pipe whose writer holds it open before the read (as a shell pipe, <(…)) is read as it comes', () => {
    const key = 'a5'.repeat(32)
    const p = fifo()
    // The writer's open completes only once a reader is there: `exec 3>` then waits for ours.
    children.push(
      spawn('bash', ['-c', `exec 3<>'${p}'; sleep 0.4; printf ${key} >&3; exec 3>&-`], { stdio: 'ignore' }),
    )
    sleep(150)
    expect(readBounded(p, '--secret-file').toString()).toBe(key)
  })

  it('/dev/zero and a directory: one line each, at once', () => {
    const d = join(dir, 'd')
    mkdirSync(d)
    for (const p of ['/dev/zero', d]) {
      const t0 = Date.now()
      expect(() => readOneLineSecret(p, '--api-key-file')).toThrow(/^--api-key-file [^\n]+$/)
      expect(Date.now() - t0).toBeLessThan(1000)
    }
  })
})
