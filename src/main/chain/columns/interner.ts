// Names (providers, models) numbered in order of first appearance, as the index's Uint16 columns
// hold them: 65,535 distinct names at most, the rest share the last number. A name is interned by
// its key; `names` holds what is shown for it (for providers, ../provider-key.ts: a provider that is
// not a JSON string is kept apart from the string of the same spelling).
export class Interner {
  readonly names: string[] = []
  readonly keys: string[] = []
  private ids = new Map<string, number>()
  constructor(private readonly label: (key: string) => string = (k) => k) {}
  id(key: string): number {
    let i = this.ids.get(key)
    if (i === undefined) {
      i = Math.min(this.names.length, 65535)
      if (this.names.length < 65536) {
        this.names.push(this.label(key))
        this.keys.push(key)
      }
      this.ids.set(key, i)
    }
    return i
  }
}
