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
  /** What of the link was not followed, and why (one line, to be shown); absent when nothing. */
  dropped?: string
}

export const EMPTY_LINK: DeepLink = { chain: null, seq: null, provider: null, model: null, range: null }

const NS = /^\d{1,20}$/

/**
 * The longest value a link carries (a path, a provider, a model). A model may be a megabyte long (a
 * chain's writer chooses): written whole, every filter change put it into the address bar, the
 * history entry and any link copied (browsers cut or refuse URLs past ~2 MB); read whole, a pasted
 * link of any length was parsed in full. Longer values are left out of the link written, and a link
 * read that carries one has that field dropped, said in one line.
 */
export const LINK_VALUE_CHARS = 4096
/**
 * The longest hash read at all (longer is not parsed): the three text fields at their longest, each
 * UTF-16 unit percent-encoded in at most 9 characters (a 3-byte UTF-8 sequence; RFC 3986 §2.1), and
 * room for the rest — so every link formatLink writes is read back.
 */
export const MAX_LINK_CHARS = 3 * LINK_VALUE_CHARS * 9 + 256

type Field = 'chain' | 'seq' | 'provider' | 'model' | 'from' | 'to'

function count(n: number): string {
  return n.toLocaleString('en-US')
}

/** The link in a URL hash (`#chain=…&seq=…`); fields that are absent or malformed are null. */
export function parseLink(hash: string): DeepLink {
  if (hash.length > MAX_LINK_CHARS)
    return {
      ...EMPTY_LINK,
      dropped: `The link was not followed: it is ${count(hash.length)} characters long, over the ${count(MAX_LINK_CHARS)} a link may be.`,
    }
  const p = new URLSearchParams(hash.replace(/^#/, ''))
  const over: string[] = []
  const bad: string[] = []
  const text = (k: Field): string | null => {
    const v = p.get(k)
    if (v === null || v === '') return null
    if (v.length > LINK_VALUE_CHARS) {
      over.push(k)
      return null
    }
    return v
  }
  const seqText = text('seq')
  const from = text('from')
  const to = text('to')
  const seq = seqText !== null && /^\d{1,15}$/.test(seqText) ? Number(seqText) : null
  if (seqText !== null && seq === null) bad.push('seq')
  const range =
    from !== null && to !== null && NS.test(from) && NS.test(to) && BigInt(from) <= BigInt(to)
      ? { from_ns: from, to_ns: to }
      : null
  if ((from !== null || to !== null) && range === null) bad.push('from/to')
  const link: DeepLink = {
    chain: text('chain'),
    seq,
    provider: text('provider'),
    model: text('model'),
    range,
  }
  const why = [
    ...(over.length ? [`${over.join(', ')} over ${count(LINK_VALUE_CHARS)} characters`] : []),
    ...(bad.length ? [`${bad.join(', ')} malformed`] : []),
  ]
  if (why.length) link.dropped = `Part of the link was not followed (${why.join('; ')}).`
  return link
}

/**
 * The hash for a link (`''` when it names nothing). Keys in a fixed order, so equal links are equal
 * text. A value over LINK_VALUE_CHARS is left out (the link would not be read back with it).
 */
export function formatLink(l: DeepLink): string {
  const p = new URLSearchParams()
  const put = (k: string, v: string | null): void => {
    if (v !== null && v.length <= LINK_VALUE_CHARS) p.set(k, v)
  }
  put('chain', l.chain)
  if (l.seq !== null) p.set('seq', String(l.seq))
  put('provider', l.provider)
  put('model', l.model)
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
