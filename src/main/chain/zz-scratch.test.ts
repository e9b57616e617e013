import { it } from 'vitest'
import { directIndex } from './index'
import { buildTimeline } from './views'
it('timeline timing', async () => {
  const idx = await directIndex('/tmp/bijotel-bench/chain-1000000.db', undefined, undefined, false)
  for (let r = 0; r < 4; r++) {
    const t = performance.now()
    buildTimeline(idx, { buckets: 400 })
    const t2 = performance.now()
    buildTimeline(idx, { buckets: 120 })
    console.log('timeline', (t2 - t).toFixed(1), (performance.now() - t2).toFixed(1))
  }
}, 60000)
