// Names (providers, models) numbered in order of first appearance, as the index's Uint32 columns
// hold them. Every distinct name has its own number: a chain names as many providers or models as
// it has rows, and a number shared past a cap (the Uint16 columns' 65,535 before) gave the rows of
// every later name the name of the one that took the last number — in the overview's counts, the
// filters, the view export, the provider share and the integrity monitor's provider shift.
// A name is interned by its key; `names` holds what is shown for it (for providers,
// ../provider-key.ts: a provider that is not a JSON string is kept apart from the string of the same
// spelling).
export class Interner {
  readonly names: string[] = []
  readonly keys: string[] = []
  private ids = new Map<string, number>()
  constructor(private readonly label: (key: string) => string = (k) => k) {}
  id(key: string): number {
    let i = this.ids.get(key)
    if (i === undefined) {
      i = this.names.length
      this.names.push(this.label(key))
      this.keys.push(key)
      this.ids.set(key, i)
    }
    return i
  }
}
