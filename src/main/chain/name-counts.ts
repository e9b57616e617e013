// The providers and models a chain names, with their row counts — for the overview (the most frequent
// OVERVIEW_NAMES, and how many names and rows are left out) and for `listNames` (pages of the names
// that hold a text, in the same order). A chain names as many models as it has rows if its writer
// wants: the overview sent every one (10^5 names, each of any length, in every overview answer and
// every poll of a staged open), and the evidence panel drew them all. Counted once per index.
import type { NameCount, NamePage, NamesLeft } from '../../shared/chain-types'
import { MAX_NAMES_PAGE, OVERVIEW_NAMES } from '../../shared/chain-types'
import type { ChainIndex } from './chain-index'
import { NO_MODEL } from './columns/types'
import { clipText } from './clip-text'

export type NameField = 'provider' | 'model'

interface Counted {
  all: NameCount[]
  /** Lower-cased names, built on the first search only. */
  lower: string[] | null
}

const counted = new WeakMap<ChainIndex, Partial<Record<NameField, Counted>>>()

function count(names: string[], ids: Uint32Array, rows: number): NameCount[] {
  const counts = new Array<number>(names.length).fill(0)
  for (let i = 0; i < rows; i++) counts[ids[i]!]!++
  return names
    .map((name, i) => ({ name, count: counts[i]! }))
    .filter((x) => x.count > 0)
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
}

function countedOf(idx: ChainIndex, field: NameField): Counted {
  let byField = counted.get(idx)
  if (!byField) counted.set(idx, (byField = {}))
  let c = byField[field]
  if (!c) {
    const all =
      field === 'provider'
        ? count(idx.providerNames, idx.provider, idx.rows)
        : count(idx.modelNames, idx.model, idx.rows).filter((m) => m.name !== NO_MODEL)
    c = byField[field] = { all, lower: null }
  }
  return c
}

/** Every name of the field with its rows, the most frequent first (ties by name). */
export function allNames(idx: ChainIndex, field: NameField): readonly NameCount[] {
  return countedOf(idx, field).all
}

/**
 * A name as an overview or a name page sends it: clipped to LIST_TEXT_UNITS (and marked) when
 * longer. A chain's names may be megabytes each: 100 of them made one overview answer (and every
 * poll of a staged open) hundreds of megabytes. The whole name is asked for by itself (listNames
 * with `whole`).
 */
function clipped(n: NameCount): NameCount {
  const name = clipText(n.name)
  return name.length === n.name.length ? n : { name, count: n.count, clipped: true }
}

/** The overview's part: at most OVERVIEW_NAMES names, and what is left out (null: nothing). */
export function overviewNames(
  idx: ChainIndex,
  field: NameField,
): { listed: NameCount[]; left: NamesLeft | null } {
  const all = countedOf(idx, field).all
  if (all.length <= OVERVIEW_NAMES) return { listed: all.map(clipped), left: null }
  const listed = all.slice(0, OVERVIEW_NAMES).map(clipped)
  let rows = 0
  for (let i = OVERVIEW_NAMES; i < all.length; i++) rows += all[i]!.count
  return { listed, left: { names: all.length - OVERVIEW_NAMES, rows } }
}

/**
 * The names holding `query` (case-insensitive; every name when empty), in the overview's order, from
 * the `offset`-th match, at most `limit` (≤ MAX_NAMES_PAGE); `matching` counts them all. Each name
 * clipped as the overview clips it, unless `whole` (the caller asks for one name at a time).
 */
export function findNames(
  idx: ChainIndex,
  field: NameField,
  query: string,
  offset: number,
  limit: number,
  whole = false,
): NamePage {
  const page = pageOf(countedOf(idx, field), query, offset, Math.min(limit, MAX_NAMES_PAGE))
  return whole ? page : { ...page, names: page.names.map(clipped) }
}

function pageOf(c: Counted, query: string, offset: number, take: number): NamePage {
  const names: NameCount[] = []
  if (query === '') {
    return { names: c.all.slice(offset, offset + take), matching: c.all.length, offset }
  }
  const lower = (c.lower ??= c.all.map((n) => n.name.toLowerCase()))
  const q = query.toLowerCase()
  let matching = 0
  for (let i = 0; i < lower.length; i++) {
    if (!lower[i]!.includes(q)) continue
    if (matching >= offset && names.length < take) names.push(c.all[i]!)
    matching++
  }
  return { names, matching, offset }
}
