// Test helper: one whole pass over a chain read by the direct reader, with the native addon or
// without it (BIJOTEL_NATIVE=0), for tests that hold the two to each other.
import { openDirect, type DirectChain } from '../../../src/main/chain/direct/open'
import { RowScanner } from '../../../src/main/chain/direct/scan'
import { layoutOf } from '../../../src/main/chain/source/direct-source'

/** `run` with a scanner over the chain at `path`, its leaf count and the chain, or the error it ends with. */
export function passOver<T>(
  path: string,
  native: boolean,
  run: (scanner: RowScanner, leaves: number, chain: DirectChain) => T,
): { value?: T; error?: string } {
  if (native) delete process.env['BIJOTEL_NATIVE']
  else process.env['BIJOTEL_NATIVE'] = '0'
  try {
    const chain = openDirect(path)
    const scanner = new RowScanner(layoutOf(chain))
    try {
      return { value: run(scanner, chain.leaves.pages.length, chain) }
    } finally {
      scanner.close()
    }
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` }
  } finally {
    delete process.env['BIJOTEL_NATIVE']
  }
}
