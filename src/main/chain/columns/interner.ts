// Names (providers, models) numbered in order of first appearance, as the index's Uint32 columns
// hold them. Every distinct name has its own number: a chain names as many providers or models as
// it has rows, and a number shared past a cap (the Uint16 columns' 65,535 before) gave the rows of
// every later name the name of the one that took the last number — in the overview's counts, the
// filters, the view export, the provider share and the integrity monitor's provider shift.
export class Interner {
  readonly names: string[] = []
  private ids = new Map<string, number>()
  id(name: string): number {
    let i = this.ids.get(name)
    if (i === undefined) {
      i = this.names.length
      this.names.push(name)
      this.ids.set(name, i)
    }
    return i
  }
}
