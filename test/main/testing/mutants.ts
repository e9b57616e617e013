// Test helper: seeded byte changes on chosen pages of a database file, written as copies, for the
// tests that hold the addon's page walks to the TypeScript reader on corrupt input.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { headerOffset } from '../../../src/main/chain/sqlite/page'
import type { Rng } from '../reliability/chainkit'

/** Page numbers (from 2) of `file` that `keep` chooses, given each page's type byte. */
export function pagesWhere(
  file: Buffer,
  pageSize: number,
  keep: (n: number, kind: number) => boolean,
): number[] {
  const out: number[] = []
  for (let n = 2; n <= file.length / pageSize; n++)
    if (keep(n, file[(n - 1) * pageSize + headerOffset(n)]!)) out.push(n)
  return out
}

/**
 * `count` copies of `file` in `dir`, each with one of `pages` (picked by `rng`) changed by `mutate`;
 * yields each copy's path and case number once it is written.
 */
export function* pageMutants(
  file: Buffer,
  pageSize: number,
  pages: number[],
  count: number,
  rng: Rng,
  dir: string,
  mutate: (page: Buffer, n: number) => void,
): Generator<{ path: string; k: number }> {
  for (let k = 0; k < count; k++) {
    const bytes = Buffer.from(file)
    const n = rng.pick(pages)
    mutate(bytes.subarray((n - 1) * pageSize, n * pageSize), n)
    const path = join(dir, `mutant-${k}.db`)
    writeFileSync(path, bytes)
    yield { path, k }
  }
}
