// The ordered leaf pages of a table b-tree, as listed from its interior pages (SQLite file format
// §1.6, "B-tree Pages"): apart from ./btree.ts so that the native walk (../../native/leaf-pages.ts)
// can return one without importing the walk it speeds up.

export interface LeafList {
  /** Leaf page numbers in key order. */
  pages: Int32Array
  /** Upper bound of the rowids on each leaf (the divider key above it; INT64_MAX for the last). */
  maxKey: BigInt64Array
}
