// Which chain a report is about (issue 38 item 5), settled before any field is compared: a report
// checked against another chain would otherwise read as a list of "differs" that looks like
// tampering. The file's SHA-256 names the exact bytes; failing that, the rows the report covered
// (its rows digest, block by block, or the head it records) name the chain: an HMAC seal is
// specific to its key and content, so a block of rows that still digests the same is this chain's.
import type { ReportSubject } from '../../shared/custody-types'
import { digestRows, priorBounds } from '../chain/rows-digest'
import type { HeldChain } from '../chain/source/held-chain'
import { firstRowOf, rowsDigestOf } from '../custody/report-file'
import { firstMoved } from '../verify/prior-chain'

function obj(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

const short = (h: unknown): string => (typeof h === 'string' ? `${h.slice(0, 16)}\u2026` : 'none')

/** The hmac_hash of row `seq` now (undefined when there is no such row). */
function hmacAt(chain: HeldChain, seq: number): unknown {
  return chain.readNow((source) => {
    const mac = source.col('hmac_hash')
    let v: unknown = undefined
    source.find(BigInt(seq), (c) => (v = c.value(mac)), ['hmac_hash'])
    return v
  })
}

export async function reportSubject(
  doc: Record<string, unknown>,
  chain: HeldChain,
  label: string,
): Promise<ReportSubject> {
  const reported = obj(obj(doc['evidence'])?.['db'])?.['sha256']
  const now = (await chain.hashed()).db.sha256
  if (reported === now)
    return {
      status: 'same_file',
      detail: `the chain file given is the one the report records (SHA-256 ${short(now)})`,
    }
  const differs = `the chain file's SHA-256 ${short(now)} is not the report's (${short(reported)})`
  const rows = rowsDigestOf(doc, label)
  if (rows !== null && rows.first_seq !== null && rows.last_seq !== null) {
    const digest = await chain.read((source) => digestRows(source, rows.block_size, priorBounds(rows)))
    const nowBlocks = new Map(digest.blocks.map((b) => [b.from_seq, b]))
    const same = rows.blocks.filter((b) => {
      const n = nowBlocks.get(b.from_seq)
      return n !== undefined && n.digest === b.digest && n.rows === b.rows && n.to_seq === b.to_seq
    }).length
    const headNow = hmacAt(chain, rows.last_seq)
    const head = headNow === rows.head_hmac
    if (same > 0 || head)
      return {
        status: 'same_chain',
        detail: `${differs}, but ${same} of the ${rows.blocks.length} blocks of rows it covered (seq ${rows.first_seq}\u2013${rows.last_seq}) are here with the seq and hmac_hash it recorded${head ? ', its head among them' : ''}: the same chain, its file changed since`,
      }
    // A block the live chain ends inside differs by the cut alone, and a head seq with no row is
    // what a truncation leaves: with nothing else to compare, "none is here as recorded" would
    // call the report's own chain, cut, another chain. Its first row's sealed time can still
    // tell another chain (../verify/prior-chain.ts, as `verify --prior` reads it).
    const end = digest.last_seq
    const comparable =
      headNow !== undefined ||
      rows.blocks.some(
        (b) => b.rows > 0 && end !== null && b.to_seq <= end && (nowBlocks.get(b.from_seq)?.rows ?? 0) > 0,
      )
    const first = firstRowOf(doc)
    const moved = first ? await chain.read((source) => firstMoved(source, first)) : undefined
    if (!comparable && moved === undefined)
      return {
        status: 'unknown',
        detail: `${differs}, and nothing of the rows it covered (seq ${rows.first_seq}\u2013${rows.last_seq}) can be compared: this chain ${end === null ? 'holds no row' : `ends at seq ${end}`}, inside the first block of them, and holds no row at its head seq; this chain cut, or another chain`,
      }
    if (!comparable && moved !== undefined && first)
      return {
        status: 'no_common_rows',
        detail: `the report is not about the chain given: ${differs}; nothing else of the rows it covered (seq ${rows.first_seq}\u2013${rows.last_seq}) can be compared, and its first row, seq ${first.seq}, has timestamp_ns ${first.timestamp_ns} where this chain's is sealed at ${moved}; this is another chain, or this one with its first row resealed. Its fields are not compared`,
      }
    return {
      status: 'no_common_rows',
      detail: `the report is not about the chain given: ${differs}, and none of the rows it covered (seq ${rows.first_seq}\u2013${rows.last_seq}, head ${short(rows.head_hmac)}) is in it as recorded; this is another chain, or this one with every covered row changed. Its fields are not compared`,
    }
  }
  const v = obj(obj(doc['verification'])?.['verdict'])
  const seq = v?.['last_seq']
  if (typeof seq === 'number' && Number.isSafeInteger(seq) && typeof v?.['head_hmac'] === 'string') {
    if (hmacAt(chain, seq) === v['head_hmac'])
      return {
        status: 'same_chain',
        detail: `${differs}, but the head it records (seq ${seq}) is here with the head_hmac it recorded: the same chain, its file changed since`,
      }
    return {
      status: 'no_common_rows',
      detail: `the report is not about the chain given: ${differs}, and its head (seq ${seq}, ${short(v['head_hmac'])}) is not in it as recorded; this is another chain, or this one with its head changed. Its fields are not compared`,
    }
  }
  return {
    status: 'unknown',
    detail: `${differs}, and the report records no rows or head to tell whether it is this chain`,
  }
}
