// The ordered leaf pages of a table b-tree, as listed from its interior pages (SQLite file format
// §1.6, "B-tree Pages"): apart from ./btree.ts so that the native walk (../../native/leaf-pages.ts)
// can return one without importing the walk it speeds up.

export interface LeafList {
  /** Leaf page numbers in key order. */
  pages: Int32Array
  /** Upper bound of the rowids on each leaf (the divider key above it; INT64_MAX for the last). */
  maxKey: BigInt64Array
}

/**
 * The same list in shared memory. Posted to a worker thread (verify's row workers each get the whole
 * list with the source's handle), a SharedArrayBuffer is shared, not copied: a million-row chain's
 * list is 6.6 MB, which postMessage otherwise serializes on this thread and deserializes on every
 * worker (≈0.17 s of CPU at 1M rows with two workers, measured with perf). Nobody writes to it.
 */
export function sharedLeafList(list: LeafList): LeafList {
  if (list.pages.buffer instanceof SharedArrayBuffer) return list
  const pages = new Int32Array(new SharedArrayBuffer(list.pages.byteLength))
  pages.set(list.pages)
  const maxKey = new BigInt64Array(new SharedArrayBuffer(list.maxKey.byteLength))
  maxKey.set(list.maxKey)
  return { pages, maxKey }
}
