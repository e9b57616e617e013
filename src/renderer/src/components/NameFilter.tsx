// One name filter of the filter bar (provider or model). A chain names as many models as it has
// rows if its writer wants (10^5 distinct models: as many <option>s, each a name of any length, all
// drawn at every render of the bar). The list holds at most NAMES_LISTED names — the most frequent
// first, as the overview orders them — and, past that, a search box narrows it to the names that
// hold what is typed: no name is out of reach, and the bar says how many more match. The name
// chosen stays in the list whatever the search; each is shown as shownName() clips it (the
// option's value is the whole name, which is what the filter matches).
import { useMemo, useState } from 'react'
import { formatCount, shownName } from '../lib/format'

export { NAME_SHOWN } from '../lib/format'

export const NAMES_LISTED = 100

interface Props {
  label: string
  /** The plural the search box and its count speak of ("models"). */
  plural: string
  names: { name: string; count: number }[]
  value: string | null
  onChange: (value: string | null) => void
  testId: string
}

export function NameFilter({ label, plural, names, value, onChange, testId }: Props) {
  const [query, setQuery] = useState('')
  const searchable = names.length > NAMES_LISTED
  const lower = useMemo(() => (searchable ? names.map((n) => n.name.toLowerCase()) : []), [names, searchable])
  const { listed, matching } = useMemo(() => {
    if (!searchable) return { listed: names, matching: names.length }
    const q = query.toLowerCase()
    const out: { name: string; count: number }[] = []
    let n = 0
    for (let i = 0; i < names.length; i++) {
      if (q !== '' && !lower[i]!.includes(q)) continue
      n++
      if (out.length < NAMES_LISTED) out.push(names[i]!)
    }
    return { listed: out, matching: n }
  }, [names, lower, query, searchable])
  const chosen =
    value !== null && !listed.some((n) => n.name === value)
      ? (names.find((n) => n.name === value) ?? { name: value, count: 0 })
      : null
  return (
    <span className="name-filter">
      <label className="field inline">
        <span>{label}</span>
        <select
          className="input"
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value || null)}
          data-testid={testId}
        >
          <option value="">all</option>
          {chosen ? (
            <option value={chosen.name}>
              {shownName(chosen.name)} ({chosen.count})
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
            onChange={(e) => setQuery(e.target.value)}
            placeholder={`search ${formatCount(names.length)} ${plural}`}
            aria-label={`search the ${formatCount(names.length)} ${plural}`}
            data-testid={`${testId}-search`}
          />
          <span className="muted small" data-testid={`${testId}-more`} aria-live="polite">
            {matching > listed.length
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
