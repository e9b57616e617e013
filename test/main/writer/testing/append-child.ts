// Child process for the concurrency test: appends `count` event rows to a chain, one BEGIN IMMEDIATE
// transaction each, while another process does the same. After each commit it pauses 1 ms: a writer
// that re-takes the lock at once leaves the other's busy handler (sqlite3.c sqliteDefaultBusyCallback,
// sleeps of up to 100 ms) almost no moment to get in, and the run would not interleave.
// Usage: append-child.ts DB SECRET_HEX COUNT TAG GO_FILE — waits for GO_FILE to exist before writing,
// so both writers start together.
import { existsSync } from 'node:fs'
import { ChainWriter } from '../../../../src/main/writer/chain-writer'

const [db, secretHex, count, tag, go] = process.argv.slice(2)
if (!db || !secretHex || !count || !tag || !go) {
  process.stderr.write('usage: append-child.ts DB SECRET_HEX COUNT TAG GO_FILE\n')
  process.exit(2)
}
const w = ChainWriter.open(db, Buffer.from(secretHex, 'hex'), { mode: 'open' })
process.stdout.write(`${tag} ready\n`)
const pause = new Int32Array(new SharedArrayBuffer(4))
const deadline = Date.now() + 30_000
while (!existsSync(go) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 5)
try {
  for (let i = 0; i < Number(count); i++) {
    w.appendEvent(
      { writer: tag, i },
      { eventName: `audit.${tag}`, timestampNs: 1_700_000_000_000_000_000n + BigInt(i) },
    )
    Atomics.wait(pause, 0, 0, 1)
  }
} finally {
  w.close()
}
process.stdout.write(`${tag} done\n`)
