// Test kit: a small chain sealed by the project's writer in a temporary folder, for the CLI tests
// of Python BIJOTEL's argument and output behaviour. 40 rows (the examples use 40), one
// minute apart from 2023-11-14T00:00:00Z; every row records a replayed output (seeded), the first
// being a Markdown list item that begins with '- '.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { recordReplayContext } from '../../../../src/main/writer/replay-context'
import { ChainWriter } from '../../../../src/main/writer/chain-writer'

export const KEY_HEX = '7878787878787878787878787878787878787878787878787878787878787878'
export const OTHER_KEY_HEX = '0011223344556677889900112233445566778899aabbccddeeff00112233aabb'
/** 2023-11-14T00:00:00Z in ns. */
export const DAY0_NS = 1_699_920_000_000_000_000n
export const MINUTE_NS = 60_000_000_000n

export function outputOf(seq: number): string {
  return seq === 1 ? '- a bullet' : `answer ${seq}`
}

export class SmallChains {
  readonly dir = mkdtempSync(join(tmpdir(), 'bijotel-cli-compat-'))
  private n = 0

  path(name: string): string {
    return join(this.dir, name)
  }

  /** A fresh chain of `rows` rows sealed with `key` (hex). */
  write(rows = 40, key = KEY_HEX): string {
    const p = this.path(`chain-${++this.n}.db`)
    const w = ChainWriter.open(p, Buffer.from(key, 'hex'), { mode: 'create' })
    try {
      for (let i = 1; i <= rows; i++) {
        const end = DAY0_NS + BigInt(i - 1) * MINUTE_NS
        w.appendSpan({
          name: 'anthropic.chat',
          kind: 'CLIENT',
          attributes: {
            'gen_ai.provider.name': 'anthropic',
            'gen_ai.request.model': 'claude-haiku-4-5',
            ...recordReplayContext({
              prompt: `q${i}`,
              output: outputOf(i),
              model: 'claude-haiku-4-5',
              seed: i,
            }),
          },
          startTimeNs: end - 1_000_000n,
          endTimeNs: end,
        })
      }
    } finally {
      w.close()
    }
    return p
  }

  /** Run SQL on one of this kit's own chains (never on a fixture). */
  edit(path: string, sql: string): void {
    const db = new Database(path)
    try {
      db.exec(sql)
    } finally {
      db.close()
    }
  }

  /** A column of one row, read with SQLite (the oracle) from one of this kit's chains. */
  column(path: string, seq: number, column: string): unknown {
    const db = new Database(path, { readonly: true })
    try {
      return db.prepare(`SELECT ${column} FROM chain WHERE seq = ?`).pluck().get(seq)
    } finally {
      db.close()
    }
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}
