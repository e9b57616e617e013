// Test kit: the cells of a table b-tree's leaves in scan order (file format §1.6: an interior page's
// cells and right-most pointer, left to right), and a cell's rowid varint rewritten in place at the
// same length. Only files the test made under its own temporary folder are written.
import { closeSync, openSync, readSync, writeSync } from 'node:fs'
import { expect } from 'vitest'
import { readVarint, varint } from '../../../../src/main/chain/sqlite/varint'
import { PAGE } from './divider-kit'

export interface LeafCell {
  leaf: number
  rowid: number
  /** File offset of the cell (its payload size varint). */
  cell: number
  /** File offset of the rowid varint and its length. */
  at: number
  len: number
}

/** Every leaf cell of the table b-tree rooted at `root`, in scan order. */
export function leafCells(path: string, root: number, page = PAGE): LeafCell[] {
  const fd = openSync(path, 'r')
  const out: LeafCell[] = []
  try {
    const visit = (n: number): void => {
      const p = Buffer.alloc(page)
      readSync(fd, p, 0, page, (n - 1) * page)
      const h = n === 1 ? 100 : 0
      const cells = p.readUInt16BE(h + 3)
      if (p[h] === 0x05) {
        for (let i = 0; i < cells; i++) visit(p.readUInt32BE(p.readUInt16BE(h + 12 + 2 * i)))
        visit(p.readUInt32BE(h + 8))
        return
      }
      expect(p[h]).toBe(0x0d)
      for (let i = 0; i < cells; i++) {
        const cell = p.readUInt16BE(h + 8 + 2 * i)
        const at = cell + readVarint(p, cell)
        const len = readVarint(p, at)
        out.push({ leaf: n, rowid: varint.value, cell: (n - 1) * page + cell, at: (n - 1) * page + at, len })
      }
    }
    visit(root)
  } finally {
    closeSync(fd)
  }
  return out
}

/** Rewrite the rowid of the `index`th leaf cell in scan order (a 2-byte varint) to `rowid`. */
export function setRowid(path: string, root: number, index: number, rowid: number): void {
  const c = leafCells(path, root)[index]!
  expect(c.len).toBe(2)
  expect(rowid).toBeGreaterThanOrEqual(128)
  const fd = openSync(path, 'r+')
  try {
    writeSync(fd, Buffer.from([0x80 | (rowid >> 7), rowid & 0x7f]), 0, 2, c.at)
  } finally {
    closeSync(fd)
  }
}
