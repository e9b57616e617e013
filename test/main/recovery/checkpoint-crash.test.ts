// Honest histories whose files were taken after a crash part-way through a checkpoint (issue 39,
// round 8: ./checkpoint-crash.ts): the database file holds the newest images of the first k pages the
// WAL holds, the WAL is whole. Histories of ./honest-six.ts (auto-vacuum FULL and INCREMENTAL from the
// start, incremental_vacuum(N), key rotation, archives, other processes, crashes) and ./honest-more.ts
// (VACUUM INTO, journal switches, secure_delete, restarts) in WAL mode. None may make a finding.
import { describe, it } from 'vitest'
import { Rng } from '../reliability/chainkit'
import { crashMidCheckpoint } from './checkpoint-crash'
import { generateMore, moreCase } from './honest-more'
import { generateSix, sixCase } from './honest-six'
import { expectNoFinding, segmentRuns, type History } from './no-finding'

const RANDOM = Number(process.env.BIJOTEL_CKPT_CASES ?? 24)
const BASE = Number(process.env.BIJOTEL_CKPT_SEED ?? 0xc4c7)

describe('a crash mid-checkpoint makes no finding', () => {
  for (let n = 0; n < RANDOM; n++) {
    const seed = BASE + n
    const kind = n % 2 === 0 ? 'six' : 'more'
    it(`#${n} seed ${seed} (${kind})`, async () => {
      const rng = new Rng(seed)
      const g: History & { cleanup(): void } =
        kind === 'six'
          ? generateSix(sixCase(rng, 'wal', 3 + (n % 8)), seed)
          : generateMore(moreCase(rng, 'wal', 3 + (n % 8)), seed)
      try {
        const done = crashMidCheckpoint(g.db, new Rng(seed ^ 0x5eed))
        g.log.push(done ?? 'no committed frame to copy')
        await expectNoFinding(g, await segmentRuns(g.segments, false))
      } finally {
        g.cleanup()
      }
    }, 120_000)
  }
})
