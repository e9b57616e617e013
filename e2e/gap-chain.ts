// A sealed chain with more gaps than one seqGaps page (issue 35: 100,000), for the browser tests:
// 120,001 rows at every other seq (120,000 gaps), written with the suite's gap-chain kit into the
// suite's cache folder (an --open-root of playwright.config.ts) once, and reused while the kit's
// version stays (the name carries it): about two seconds to write, none after.
import { existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gappySeqs, writeGappyChain } from '../test/main/testing/gappy-chain'

export const GAP_ROWS = 120_001

export function gapChain(): { path: string; seqs: number[] } {
  const cache = join(tmpdir(), 'bijotel-e2e-cache')
  mkdirSync(cache, { recursive: true })
  const seqs = gappySeqs('every other seq', GAP_ROWS, 35)
  const path = join(cache, `gaps-every-other-${GAP_ROWS}-v1.db`)
  if (!existsSync(path)) writeGappyChain(path, seqs)
  return { path, seqs }
}
