// Runs that shrink towards the end of a pass (guided self-scheduling, Polychronopoulos & Kuck 1987):
// threads take the next run when they finish one, so the pass ends when the last run does, and a
// thread that takes a long run last leaves the others idle meanwhile. Runs of equal size leave up to
// one run's time on one core at the end; each run here is the rows left divided by twice the
// threads, so the last ones are a single piece and the threads end within about a piece of each
// other. Only balance depends on it: the runs cover the place exactly, in order, each row once.
import type { Place } from '../chain/source/row-source'

/**
 * `pieces` (consecutive, covering one place in order, as `RowSource.split` cuts it) joined into runs
 * of ⌈left / (2 · threads)⌉ pieces each, `left` the pieces not yet in a run.
 */
export function shrinkingRuns(pieces: Place[], threads: number): Place[] {
  const out: Place[] = []
  const share = 2 * Math.max(1, threads)
  for (let i = 0; i < pieces.length;) {
    const take = Math.ceil((pieces.length - i) / share)
    out.push({ from: pieces[i]!.from, to: pieces[i + take - 1]!.to })
    i += take
  }
  return out
}
