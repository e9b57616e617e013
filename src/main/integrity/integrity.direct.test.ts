// The integrity monitor read directly from the file must give exactly the SQLite path's run, on
// every fixture, in window and --all mode (windows that begin inside a leaf included), with and
// without keys.
import { describe, expect, it } from 'vitest'
import type { RunIntegrityOptions } from './analyze'
import { runIntegrity } from './analyze'
import { directSource } from './direct'
import { openDirect } from '../chain/direct/open'
import { ChainFile } from '../chain/reader'
import { dbPath, expected, fixtureNames, secretInputs } from '../testing/fixtures'
import { parseSecrets } from '../verify/secrets'

describe('integrity: direct reader = SQLite on a copy', () => {
  for (const name of fixtureNames()) {
    it(name, async () => {
      const keys = parseSecrets(secretInputs(expected(name).secrets))
      const cases: RunIntegrityOptions[] = [
        {},
        { window: 2 },
        { window: 3 },
        { window: 37 },
        { window: 99 },
        { window: 101 },
        { window: 149 },
        { window: 10000 },
        { all: true },
        { all: true, keys },
        { window: 50, keys },
        { all: true, thresholds: { burst_threshold: 1, large_gap_sec: 60 } },
      ]
      const chain = await ChainFile.open(dbPath(name))
      try {
        for (const opts of cases) {
          const classic = await runIntegrity(chain, opts)
          const direct = await runIntegrity(directSource(openDirect(dbPath(name))), opts)
          expect(direct, JSON.stringify(opts)).toEqual(classic)
        }
      } finally {
        chain.close()
      }
    })
  }
})
