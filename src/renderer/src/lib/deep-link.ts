// A finding as a link (web mode): the URL's hash names the chain, the selected seq and the filters,
// `#chain=/evidence/chain.db&seq=57&provider=openai&model=gpt-4o&from=<ns>&to=<ns>`, so an auditor
// can send a colleague exactly what is on screen. Read once on load, written back with
// history.replaceState as the auditor works (no history entry per click). Pure functions here; the
// app store applies a link, DeepLinkSync writes it.
import type { TimeRange, ViewState } from './filter-state'

export interface DeepLink {
  chain: string | null
  seq: number | null
  provider: string | null
  model: string | null
  range: TimeRange | null
}

export const EMPTY_LINK: DeepLink = { chain: null, seq: null, provider: null, model: null, range: null }

const NS = /^\d{1,20}$/

/** The link in a URL hash (`#chain=…&seq=…`); fields that are absent or malformed are null. */
export function parseLink(hash: string): DeepLink {
  const p = new URLSearchParams(hash.replace(/^#/, ''))
  const text = (k: string): string | null => {
    const v = p.get(k)
    return v !== null && v !== '' && v.length <= 4096 ? v : null
  }
  const seqText = text('seq')
  const from = text('from')
  const to = text('to')
  return {
    chain: text('chain'),
    seq: seqText !== null && /^\d{1,15}$/.test(seqText) ? Number(seqText) : null,
    provider: text('provider'),
    model: text('model'),
    range:
      from !== null && to !== null && NS.test(from) && NS.test(to) && BigInt(from) <= BigInt(to)
        ? { from_ns: from, to_ns: to }
        : null,
  }
}

/** The hash for a link (`''` when it names nothing). Keys in a fixed order, so equal links are equal text. */
export function formatLink(l: DeepLink): string {
  const p = new URLSearchParams()
  if (l.chain !== null) p.set('chain', l.chain)
  if (l.seq !== null) p.set('seq', String(l.seq))
  if (l.provider !== null) p.set('provider', l.provider)
  if (l.model !== null) p.set('model', l.model)
  if (l.range !== null) {
    p.set('from', l.range.from_ns)
    p.set('to', l.range.to_ns)
  }
  const s = p.toString()
  return s === '' ? '' : `#${s}`
}

/** What the window shows, as a link. */
export function linkOf(chain: string | null, seq: number | null, view: ViewState | null): DeepLink {
  return {
    chain,
    seq,
    provider: view?.provider ?? null,
    model: view?.model ?? null,
    range: view?.range ?? null,
  }
}

/** Whether a link asks for anything beyond the chain. */
export function hasView(l: DeepLink): boolean {
  return l.seq !== null || l.provider !== null || l.model !== null || l.range !== null
}
