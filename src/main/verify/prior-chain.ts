// Whether a prior is of the chain verified now (issue 39, "Priors"): a prior of another chain
// compared row by row would be a false "rewritten seq 1-N". A prior is of this chain when it and the
// live chain share at least one seq with the same hmac_hash (its head, or a block of its rows digest
// that is the same now), or when a live row links to its head (prev_hash = the prior head_hmac), or
// when a placed recovered row is its head or links to it (priorHeadPlaced: checked by the caller that
// searched the files, ../audit/verify-file.ts).
// A report prior names its first row's time too (coverage.statement): when the live row at that seq
// holds another time, and that time is the one its own body holds, whose hash holds (and, with keys,
// its HMAC: neither an edit of the unsealed column nor a row forged without the key counts), the row
// there is not the row the prior saw — a seq to compare, as a digest block is. A report of a longer
// chain of another origin, whose every block the live chain ends inside, read "truncated" otherwise.
// Otherwise, when anything of it could be compared, it is refused in one line. A prior nothing of
// which can be compared (its head, or every block it covered, lies past the live chain's end, or its
// head seq holds no row now) is not refused: that is what a truncation or a deletion leaves, and the
// head check reports it (named "per an unsigned prior" when the prior is unsigned).
import type { RowsDigest } from '../../shared/custody-types'
import type { RecoveredRow } from '../../shared/recovery-types'
import type { PriorHead } from '../../shared/verify-types'
import { AuditError } from '../base/errors'
import { columnMismatches, sealedSpanFields } from '../chain/body'
import type { KeyMaterial } from '../chain/keys'
import { hmacHex, sha256Hex } from '../chain/seal'
import { digestRows, priorBounds } from '../chain/rows-digest'
import type { RowSource } from '../chain/source/row-source'

export const OTHER_CHAIN =
  'the prior is of another chain: it shares no row (a seq with the same hmac_hash) with this chain and no row of this chain links to its head (or every row it records was since resealed)'

export interface LiveFacts {
  /** The stored hmac_hash of the live row at the prior head's seq (undefined: no such row). */
  headMac: unknown
  /** The stored prev_hash of the live row right after the prior head (undefined: no such row). */
  nextPrev: unknown
  /** With a report prior: the digest of the same seq range now, with the same block size. */
  rowsNow?: RowsDigest
  /**
   * With a report prior naming its first row: the sealed time of the live row at that seq, when it
   * is not the prior's and the row's timestamp_ns column holds it too (undefined otherwise).
   */
  firstMoved?: string
}

/** The refusal: a bad argument (exit 2 in the CLI), told apart so the CLI can name the --prior given. */
export class OtherChainPrior extends AuditError {
  constructor(words = OTHER_CHAIN) {
    super('bad_argument', words)
  }
}

/** Throws `bad_argument` (one line, exit 2 in the CLI) when the prior is of another chain. */
export function requirePriorOfThisChain(prior: PriorHead, live: LiveFacts): void {
  if (live.headMac === prior.head_hmac) return
  if (live.nextPrev !== undefined && live.nextPrev === prior.head_hmac) return
  let comparable = live.headMac !== undefined
  if (prior.rows && live.rowsNow) {
    const c = sharedBlocks(prior.rows, live.rowsNow)
    if (c.shared) return
    comparable = comparable || c.comparable
  }
  if (comparable) throw new OtherChainPrior()
  if (live.firstMoved !== undefined && prior.first)
    throw new OtherChainPrior(firstMovedWords(prior.first, live.firstMoved))
}

function firstMovedWords(first: NonNullable<PriorHead['first']>, now: string): string {
  return `the prior is of another chain: its first row, seq ${first.seq}, has timestamp_ns ${first.timestamp_ns}; this chain's seq ${first.seq} is sealed at ${now}, and it shares no row (a seq with the same hmac_hash) with this chain and no row of this chain links to its head (or every row it records was since resealed)`
}

/**
 * Blocks of the prior's digest against the same blocks now. A block is comparable when the live
 * chain reaches past its end (a block the live chain ends inside differs by the cut alone); one that
 * held rows and has the same digest and row count now is the same (seq, hmac_hash) rows.
 */
function sharedBlocks(prior: RowsDigest, now: RowsDigest): { shared: boolean; comparable: boolean } {
  if (prior.block_size !== now.block_size || prior.last_seq === null || now.last_seq === null)
    return { shared: false, comparable: false }
  const nowEnd = now.last_seq
  const cut = nowEnd < prior.last_seq
  const after = new Map(now.blocks.map((b) => [b.from_seq, b]))
  let comparable = false
  for (const b of prior.blocks) {
    if (b.rows === 0) continue
    if (cut && b.to_seq > nowEnd) continue
    const n = after.get(b.from_seq)
    // A block with no live row at all is a deletion, not a comparison of rows.
    if (!n || n.rows === 0) continue
    comparable = true
    if (n.digest === b.digest && n.rows === b.rows) return { shared: true, comparable }
  }
  return { shared: false, comparable }
}

/**
 * Whether a placed recovered row — proven by a candidate key, given its seq by sealed links
 * (../recovery/place.ts) — is the prior's head at its seq, or follows it (its prev_hash is the head's
 * hmac_hash, one seq on): then the prior is of this chain, though no live row shows it any more (a
 * truncated head recovered from free space). An unproven record could be written by anyone: it does
 * not count.
 */
export function priorHeadPlaced(prior: PriorHead, recovered: readonly RecoveredRow[] | undefined): boolean {
  const head = prior.last_seq
  return (recovered ?? []).some(
    (r) =>
      r.seq !== null &&
      r.status !== 'unplaced' &&
      r.key_index !== null &&
      ((r.hmac_hash === prior.head_hmac && r.seq === head) ||
        (r.prev_hash === prior.head_hmac && r.seq === head + 1)),
  )
}

/** What the live chain read through `source` holds where the prior is (a report prior's digest: `rowsNow`, when already made). */
export function liveFacts(
  source: RowSource,
  prior: PriorHead,
  rowsNow?: RowsDigest,
  keys: readonly KeyMaterial[] = [],
): LiveFacts {
  const at = (seq: bigint, col: string): unknown => {
    const i = source.col(col)
    let v: unknown = undefined
    source.find(seq, (c) => (v = c.value(i)), [col])
    return v
  }
  const p = prior.rows
  const now = rowsNow ?? (p ? digestRows(source, p.block_size, priorBounds(p)) : undefined)
  const moved = prior.first ? firstMoved(source, prior.first, keys) : undefined
  return {
    headMac: at(BigInt(prior.last_seq), 'hmac_hash'),
    nextPrev: at(BigInt(prior.last_seq) + 1n, 'prev_hash'),
    ...(now ? { rowsNow: now } : {}),
    ...(moved !== undefined ? { firstMoved: moved } : {}),
  }
}

/**
 * The live row at the prior's first seq: its time when that is not the prior's and is the time its
 * sealed span body holds, the row's body hash holding (and its HMAC under one of `keys`, when given) (as verify's column check reads it, ../chain/body.ts); else undefined (no
 * row there, a body that is no span, or a column that disagrees with its body: verify's findings
 * say what that row is, and it proves nothing about the prior).
 */
export function firstMoved(
  source: RowSource,
  first: NonNullable<PriorHead['first']>,
  keys: readonly KeyMaterial[] = [],
): string | undefined {
  const names = ['timestamp_ns', 'canonical_body', 'canonical_hash', 'prev_hash', 'hmac_hash']
  const cols = names.map((n) => source.col(n))
  if (cols.some((i) => i < 0)) return undefined
  let ts: bigint | null = null
  let body: Buffer | null = null
  let seal: unknown[] = []
  source.find(
    BigInt(first.seq),
    (c) => {
      ts = c.isInt(cols[0]!) ? c.intBig(cols[0]!) : null
      // A copy: the row's bytes are valid only inside this callback (RowSource's ChainRow).
      const b = c.castBlob(cols[1]!)
      body = b === null ? null : Buffer.from(b)
      seal = cols.slice(2).map((i) => c.value(i))
    },
    names,
  )
  if (ts === null || body === null) return undefined
  const stored: bigint = ts
  // The time counts only as the row's sealed content: its body hash holds, and with keys its HMAC
  // under one of them (a row forged without the key, cut tail and all, proves nothing of the prior).
  const [ch, prev, mac] = seal
  if (typeof ch !== 'string' || sha256Hex(body) !== ch) return undefined
  if (keys.length > 0 && (typeof prev !== 'string' || !keys.some((k) => hmacHex(k.bytes, prev, ch) === mac)))
    return undefined
  let fields
  try {
    fields = sealedSpanFields(body)
  } catch {
    return undefined
  }
  if (fields === null) return undefined
  if (columnMismatches(fields, stored, null, null, { span_name: false, span_kind: false }).length > 0)
    return undefined
  return stored === BigInt(first.timestamp_ns) ? undefined : stored.toString()
}
