// @vitest-environment jsdom
// Files dropped for a replay batch are judged by size before a byte is read, and sent in calls the
// engine takes. Before, a dropped JSONL file of any size was read whole into the page (a 2 GB file:
// a 2.7 GB base64 string, past what the page can hold: nothing shown, or the renderer gone), and all
// the replay files of a drop went in one call, which the engine's 96 MiB bound refused whole once
// their sum passed it (a folder of 40 × 5 MB files: not one checked). Generated drops of JSONL and
// named replay files with sizes around the bounds (a File's size is declared; its bytes are small),
// through the real handler table on a chain written for the test.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ApiClient } from '../../../../../src/shared/contract'
import { REPLAY_BATCH_BASE64_MAX } from '../../../../../src/shared/replay-names'
import { createHandlers } from '../../../../../src/main/handlers/table'
import { ReplayBatchStore } from '../../../../../src/renderer/src/lib/stores/replay-batch-store'
import { fakeApi } from '../../test/fake-api'
import { perTest } from '../../../../main/testing/per-test'
import { mulberry32 } from '../../../../main/testing/prng'
import { SMALL, writeChainFolder } from '../../../../main/testing/exact-chains'

const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const
const MIB = 1024 * 1024

/** A file whose size is declared `size` (what the drop judges) over a few real bytes. */
function declared(name: string, text: string, size: number): File {
  const f = new File([text], name)
  Object.defineProperty(f, 'size', { value: size })
  return f
}

async function store() {
  const path = writeChainFolder(join(per.scratch('bijotel-batch-sizes-'), 'a'), { ...SMALL, rows: 50 })
  const h = createHandlers(per.session())
  await h.openChain({ path }, ctx)
  const sent: string[][] = []
  const { api } = fakeApi({
    overrides: {
      checkReplayBatch: (async (req: { jsonl_base64: string }) => {
        expect(req.jsonl_base64.length).toBeLessThanOrEqual(REPLAY_BATCH_BASE64_MAX)
        const lines = Buffer.from(req.jsonl_base64, 'base64').toString('utf8').trim().split('\n')
        sent.push(lines.map((l) => (JSON.parse(l) as { name?: string }).name ?? ''))
        return structuredClone(await h.checkReplayBatch(req, ctx))
      }) as unknown as ApiClient['checkReplayBatch'],
      listReplayChecks: (async () =>
        structuredClone(await h.listReplayChecks({}, ctx))) as ApiClient['listReplayChecks'],
    },
  })
  return { batch: new ReplayBatchStore(api, { mode: () => 'python', checks: () => undefined }), sent }
}

/** The base64 characters a named file takes in a call (its bytes base64 in its line, then again). */
const b64 = (n: number): number => 4 * Math.ceil(n / 3)

describe('a replay drop is judged by size before it is read, and sent in calls the engine takes', () => {
  for (let seed = 1; seed <= 8; seed++)
    it(`generated drop ${seed}`, async () => {
      const rnd = mulberry32(seed * 104729)
      const { batch, sent } = await store()
      const sizes = [1, 3 * MIB, 20 * MIB, 50 * MIB, 54 * MIB, 60 * MIB, 70 * MIB, 2 ** 31]
      const files: File[] = []
      const named = new Map<string, number>()
      const jsonl = new Map<string, number>()
      const n = 2 + Math.floor(rnd() * 30)
      for (let i = 0; i < n; i++) {
        const size = sizes[Math.floor(rnd() * sizes.length)]!
        if (rnd() < 0.25) {
          const name = `b${i}.jsonl`
          jsonl.set(name, size)
          files.push(declared(name, JSON.stringify({ seq: 1 + (i % 50), output: 'x', name }) + '\n', size))
        } else {
          const unique = `r${i}.replay-${1 + (i % 50)}.txt`
          named.set(unique, size)
          files.push(declared(unique, `out ${i}`, size))
        }
      }
      await batch.drop(files)
      const names = sent.flat()
      for (const [name, size] of named) {
        const fits =
          size <= 64 * MIB && b64(b64(size) + name.length * 6 + 128) <= REPLAY_BATCH_BASE64_MAX - 64 * 1024
        expect(names.filter((x) => x === name).length, `${name} (${size} bytes)`).toBe(fits ? 1 : 0)
      }
      for (const [name, size] of jsonl)
        expect(names.filter((x) => x === name).length, `${name} (${size} bytes)`).toBe(
          b64(size) <= REPLAY_BATCH_BASE64_MAX - 64 * 1024 ? 1 : 0,
        )
      // Each call holds what its files' declared sizes allow.
      for (const call of sent) {
        const chars = call.reduce(
          (a, name) =>
            a +
            (named.has(name)
              ? b64(b64(named.get(name)!) + name.length * 6 + 128)
              : b64(jsonl.get(name) ?? 0)),
          0,
        )
        expect(chars).toBeLessThanOrEqual(REPLAY_BATCH_BASE64_MAX)
      }
      const refused =
        [...named].filter(
          ([name, s]) =>
            s > 64 * MIB || b64(b64(s) + name.length * 6 + 128) > REPLAY_BATCH_BASE64_MAX - 64 * 1024,
        ).length + [...jsonl].filter(([, s]) => b64(s) > REPLAY_BATCH_BASE64_MAX - 64 * 1024).length
      const st = batch.getState()
      if (refused > 0) expect(st.error).toMatch(/bytes: .* are not read|is not read/)
      else expect(st.error).toBeNull()
      expect(st.items.length).toBe(names.length)
      expect(st.busy).toBe(false)
    }, 60_000)
})
