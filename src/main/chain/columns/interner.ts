// Names (providers, models) numbered in order of first appearance, as the index's Uint16 columns
// hold them: 65,535 distinct names at most, the rest share the last number.
export class Interner {
  readonly names: string[] = []
  private ids = new Map<string, number>()
  id(name: string): number {
    let i = this.ids.get(name)
    if (i === undefined) {
      i = Math.min(this.names.length, 65535)
      if (this.names.length < 65536) this.names.push(name)
      this.ids.set(name, i)
    }
    return i
  }
}
