// One name filter of the filter bar (provider or model). A chain names as many models as it has
// rows if its writer wants (10^5 distinct models, each a name of any length). The overview brings
// only the most frequent OVERVIEW_NAMES and says how many it leaves out (`left`); the list holds
// those, and a search box asks the engine (`search`, the listNames call) for the names that hold
// what is typed — at most NAMES_LISTED at a time, and the bar says how many more match: no name is
// out of reach, and no answer or drawing grows with the chain. A complete list (nothing left out) is
// searched here. The name chosen stays in the list whatever the search; each is shown as
// shownName() clips it (the option's value is the whole name, which is what the filter matches).
import { useEffect, useMemo, useState } from 'react'
import type { NameCount, NamePage, NamesLeft } from '../../../shared/chain-types'
import { formatCount, shownName } from '../lib/format'

export { NAME_SHOWN } from '../lib/format'

export const NAMES_LISTED = 100
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
  value: string | null
  onChange: (value: string | null) => void
  testId: string
}

interface Found {
  query: string
  page: NamePage | null
  error: string | null
}

export function NameFilter({ label, plural, names, left, search, value, onChange, testId }: Props) {
  const [query, setQuery] = useState('')
  const [picked, setPicked] = useState<NameCount | null>(null)
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
  const { listed, matching, waiting } = useMemo(() => {
    if (!searchable || query === '')
      return { listed: names.slice(0, NAMES_LISTED), matching: total, waiting: false }
    if (remote) {
      const f = found?.query === query ? found : null
      return { listed: f?.page?.names ?? [], matching: f?.page?.matching ?? 0, waiting: f === null }
    }
    const q = query.toLowerCase()
    const out: NameCount[] = []
    let n = 0
    for (let i = 0; i < names.length; i++) {
      if (!lower[i]!.includes(q)) continue
      n++
      if (out.length < NAMES_LISTED) out.push(names[i]!)
    }
    return { listed: out, matching: n, waiting: false }
  }, [names, lower, query, searchable, remote, found, total])
  const chosen =
    value !== null && !listed.some((n) => n.name === value)
      ? (names.find((n) => n.name === value) ??
        (picked?.name === value ? picked : { name: value, count: -1 }))
      : null
  const failed = remote && found?.query === query ? found.error : null
  return (
    <span className="name-filter">
      <label className="field inline">
        <span>{label}</span>
        <select
          className="input"
          value={value ?? ''}
          onChange={(e) => {
            const v = e.target.value || null
            setPicked(v === null ? null : (listed.find((n) => n.name === v) ?? null))
            onChange(v)
          }}
          data-testid={testId}
        >
          <option value="">all</option>
          {chosen ? (
            <option value={chosen.name}>
              {shownName(chosen.name)}
              {chosen.count >= 0 ? ` (${chosen.count})` : ''}
            </option>
          ) : null}
          {listed.map((m) => (
            <option key={m.name} value={m.name}>
              {shownName(m.name)} ({m.count})
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
            {failed !== null
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
      ) : null}
    </span>
  )
}
