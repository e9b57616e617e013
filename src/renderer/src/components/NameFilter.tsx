// One name filter of the filter bar (provider or model). A chain names as many models as it has
// rows if its writer wants (10^5 distinct models, each a name of any length). The overview brings
// only the most frequent OVERVIEW_NAMES and says how many it leaves out (`left`); the list holds
// those, and a search box asks the engine (`search`, the listNames call) for the names that hold
// what is typed — at most NAMES_LISTED at a time, and the bar says how many more match: no name is
// out of reach, and no answer or drawing grows with the chain. A complete list (nothing left out) is
// searched here. The name chosen stays in the list whatever the search; each is shown as
// shownName() clips it. The engine sends a name longer than LIST_TEXT_UNITS clipped (`clipped`):
// choosing it asks for the whole name first (`whole`), which is what the filter matches.
import { useEffect, useMemo, useState } from 'react'
import { LIST_TEXT_UNITS, type NameCount, type NamePage, type NamesLeft } from '../../../shared/chain-types'
import { formatCount, shownName } from '../lib/format'
import { wholeName, type WholeNameAsk } from '../lib/whole-name'

export { NAME_SHOWN } from '../lib/format'

export const NAMES_LISTED = 100
/** Starts the option value of a clipped name: longer than any name sent unclipped. */
const CLIPPED_TOKEN = '\u0000'.repeat(LIST_TEXT_UNITS + 1)
/** How long typing must pause before the engine is asked (ms). */
const SEARCH_PAUSE = 150

interface Props {
  label: string
  /** The plural the search box and its count speak of ("models"). */
  plural: string
  names: NameCount[]
  /** What the overview left out of `names` (absent: `names` is every name). */
  left?: NamesLeft | null
  /** The engine's search of every name (needed when `left` is given). */
  search?: (query: string) => Promise<NamePage>
  /** The engine's listNames for one whole name (needed when a name comes clipped). */
  whole?: WholeNameAsk
  value: string | null
  onChange: (value: string | null) => void
  testId: string
}

/** A listed name and where the engine lists it (the query and offset that ask for it whole). */
interface Listed {
  n: NameCount
  query: string
  offset: number
}

interface Found {
  query: string
  page: NamePage | null
  error: string | null
}

export function NameFilter({ label, plural, names, left, search, whole, value, onChange, testId }: Props) {
  const [query, setQuery] = useState('')
  const [picked, setPicked] = useState<NameCount | null>(null)
  const [wholeError, setWholeError] = useState<string | null>(null)
  const remote = !!left && !!search
  const total = names.length + (left?.names ?? 0)
  const searchable = total > NAMES_LISTED || remote
  const [found, setFound] = useState<Found | null>(null)
  useEffect(() => {
    if (!remote || query === '') return
    let live = true
    const t = setTimeout(() => {
      search!(query).then(
        (page) => live && setFound({ query, page, error: null }),
        (e: unknown) => live && setFound({ query, page: null, error: String((e as Error).message ?? e) }),
      )
    }, SEARCH_PAUSE)
    return () => {
      live = false
      clearTimeout(t)
    }
  }, [remote, search, query])
  const lower = useMemo(
    () => (searchable && !remote ? names.map((n) => n.name.toLowerCase()) : []),
    [names, searchable, remote],
  )
  const { listed, matching, waiting } = useMemo((): {
    listed: Listed[]
    matching: number
    waiting: boolean
  } => {
    const at = (n: NameCount, i: number): Listed => ({ n, query: '', offset: i })
    if (!searchable || query === '')
      return { listed: names.slice(0, NAMES_LISTED).map(at), matching: total, waiting: false }
    if (remote) {
      const f = found?.query === query ? found : null
      const page = f?.page
      return {
        listed: (page?.names ?? []).map((n, i) => ({ n, query, offset: page!.offset + i })),
        matching: page?.matching ?? 0,
        waiting: f === null,
      }
    }
    const q = query.toLowerCase()
    const out: Listed[] = []
    let n = 0
    for (let i = 0; i < names.length; i++) {
      if (!lower[i]!.includes(q)) continue
      n++
      if (out.length < NAMES_LISTED) out.push(at(names[i]!, i))
    }
    return { listed: out, matching: n, waiting: false }
  }, [names, lower, query, searchable, remote, found, total])
  // An option's value is its whole name (what the filter matches); a clipped name's is a token no
  // listed whole name can be (longer than LIST_TEXT_UNITS), by its place in the list.
  const own = (l: Listed): boolean => !l.n.clipped && l.n.name === value
  const optionValue = (l: Listed, i: number): string => (l.n.clipped ? `${CLIPPED_TOKEN}${i}` : l.n.name)
  const chosen =
    value !== null && !listed.some(own)
      ? (names.find((n) => !n.clipped && n.name === value) ??
        (picked?.name === value ? picked : { name: value, count: -1 }))
      : null
  const choose = (v: string): void => {
    setWholeError(null)
    if (v === '') {
      setPicked(null)
      onChange(null)
      return
    }
    if (v === value) return
    const l = listed.find((x, i) => optionValue(x, i) === v)
    if (!l) return
    if (!l.n.clipped) {
      setPicked(l.n)
      onChange(l.n.name)
      return
    }
    if (!whole) {
      setWholeError('this name is too long to filter by here')
      return
    }
    wholeName(whole, l.n, l.query, l.offset).then(
      (name) => {
        setPicked({ name, count: l.n.count })
        onChange(name)
      },
      (e: unknown) => setWholeError(String((e as Error).message ?? e)),
    )
  }
  const failed = remote && found?.query === query ? found.error : null
  return (
    <span className="name-filter">
      <label className="field inline">
        <span>{label}</span>
        <select
          className="input"
          value={value ?? ''}
          onChange={(e) => choose(e.target.value)}
          data-testid={testId}
        >
          <option value="">all</option>
          {chosen ? (
            <option value={chosen.name}>
              {shownName(chosen.name)}
              {chosen.count >= 0 ? ` (${chosen.count})` : ''}
            </option>
          ) : null}
          {listed.map((l, i) => (
            <option key={i} value={optionValue(l, i)}>
              {shownName(l.n.name)} ({l.n.count})
            </option>
          ))}
        </select>
      </label>
      {searchable ? (
        <>
          <input
            type="search"
            className="input name-search"
            value={query}
            maxLength={64 * 1024}
            onChange={(e) => setQuery(e.target.value)}
            placeholder={`search ${formatCount(total)} ${plural}`}
            aria-label={`search the ${formatCount(total)} ${plural}`}
            data-testid={`${testId}-search`}
          />
          <span className="muted small" data-testid={`${testId}-more`} aria-live="polite">
            {wholeError !== null
              ? `not chosen: ${wholeError}`
              : failed !== null
                ? `search failed: ${failed}`
                : waiting
                  ? 'searching…'
                  : matching > listed.length
                    ? `${formatCount(listed.length)} of ${formatCount(matching)} listed: search to narrow`
                    : matching === 0
                      ? `no ${plural} match`
                      : `${formatCount(matching)} listed`}
          </span>
        </>
      ) : wholeError !== null ? (
        <span className="muted small" data-testid={`${testId}-more`} aria-live="polite">
          not chosen: {wholeError}
        </span>
      ) : null}
    </span>
  )
}
