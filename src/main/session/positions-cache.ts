// The table's row positions per (filter, order), kept for the few newest asks: paging through a
// view selects once. Emptied whenever what a filter depends on changes (verdict, integrity, chain).
const KEEP = 16

export class PositionsCache {
  private readonly kept = new Map<string, Int32Array>()

  get(key: unknown[], select: () => Int32Array): Int32Array {
    const k = JSON.stringify(key)
    let p = this.kept.get(k)
    if (!p) {
      p = select()
      if (this.kept.size > KEEP) this.kept.clear()
      this.kept.set(k, p)
    }
    return p
  }

  clear(): void {
    this.kept.clear()
  }
}
