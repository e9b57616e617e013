// readChain for tests whose assertions run inside `use`. readChain takes any error that is not an
// AuditError, thrown while the direct reader serves `use`, for a file that reader tripped on, and
// runs `use` again on the SQLite copy (src/main/chain/direct/open.ts withDirect): a failed
// assertion would be retried there, and the test could pass on the reader it did not mean to hold.
// Here `use` fails once and for all: its first failure is the test's.
import { readChain, type ReadOptions } from '../../../src/main/chain/source/open-source'
import type { RowSource } from '../../../src/main/chain/source/row-source'

export async function readChainOnce<T>(
  path: string,
  use: (source: RowSource) => Promise<T>,
  opts?: ReadOptions,
): Promise<T> {
  let failed: { error: unknown } | null = null
  return readChain(
    path,
    async (source) => {
      if (failed !== null) throw failed.error
      try {
        return await use(source)
      } catch (error) {
        failed = { error }
        throw error
      }
    },
    opts,
  )
}
