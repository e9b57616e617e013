// Verifying one run of rows of any source: every row goes to the one RowChecker, fed the same
// values whichever source read it. Where the source has the record's bytes (the direct reader),
// a clean row may be proven on them first — by the native row prover, or in TypeScript
// (./record-proof.ts) — which leaves exactly the state `push` would.
import type { ChainRow, Place, Predecessor, ResolvedRange, RowSource } from '../chain/source/row-source'
import { rowProver } from '../chain/addon/row-prover'
import { sha256Hex } from '../chain/seal'
import { RowChecker, type PartitionResult, type PartitionSpec, type VerifyHooks } from './partition'
import { columnsAgreeOnBytes, textIsAscii } from './record-proof'
import type { KeyMaterial } from '../chain/keys'

/** The columns verification reads (a SQLite source selects only these). */
export const VERIFY_COLUMNS = [
  'timestamp_ns',
  'span_name',
  'span_kind',
  'canonical_body',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
] as const

export function verifyPart(
  source: RowSource,
  keys: KeyMaterial[],
  range: ResolvedRange,
  place: Place,
  spec: PartitionSpec,
  hooks: VerifyHooks = {},
): PartitionResult {
  const ts = source.col('timestamp_ns')
  const name = source.col('span_name')
  const kind = source.col('span_kind')
  const body = source.col('canonical_body')
  const ch = source.col('canonical_hash')
  const prev = source.col('prev_hash')
  const mac = source.col('hmac_hash')
  const has = { span_name: name >= 0, span_kind: kind >= 0 }

  // The checker needs the run's predecessor; where the source finds it in the run's own walk (the
  // copy), it is made when the walk hands it over, before the first row.
  let checker: RowChecker = null as unknown as RowChecker
  const start = (pred: Predecessor | null): void => {
    checker = new RowChecker(keys, has, spec, pred, hooks)
  }
  const inOneWalk = source.scanWithPredecessor !== undefined
  if (!inOneWalk) start(source.predecessor(place, range))
  const prover =
    name >= 0 && source.kind === 'direct'
      ? rowProver({
          body,
          canonicalHash: ch,
          prevHash: prev,
          hmacHash: mac,
          timestampNs: ts,
          spanName: name,
          spanKind: kind,
        })
      : null
  const each = (c: ChainRow): void => {
    const big = c.rowidBig
    const rec = c.record
    // The native prover proves a clean row on the record where it lies, before any value is read
    // into JavaScript; a row it does not prove is decided below like any other.
    if (
      prover !== null &&
      rec !== null &&
      big === null &&
      checker.proverHoldsLink(c.rowid, prover) &&
      prover.proveRow(rec.buf, rec.types, rec.offs)
    ) {
      checker.pushProvenByProver(c.rowid)
      return
    }
    const tsText = c.isInt(ts) ? c.intBig(ts)!.toString() : null
    const bodyBytes = c.castBlob(body)
    const proven =
      rec !== null &&
      bodyBytes !== null &&
      tsText !== null &&
      name >= 0 &&
      columnsAgreeOnBytes(rec, bodyBytes, tsText, name, kind)
    if (proven && big === null && prover === null) {
      // A clean row is proven on the page bytes, without a string per hash column; anything else
      // (or any doubt) goes to push.
      const link = checker.provableLink(c.rowid)
      if (link !== null) {
        const digest = sha256Hex(bodyBytes)
        if (textIsAscii(rec, ch, digest) && textIsAscii(rec, prev, link)) {
          const seal = checker.sealUnderLastKey(link, digest)
          if (textIsAscii(rec, mac, seal)) {
            checker.pushProven(c.rowid, seal)
            return
          }
        }
      }
    }
    // The name and kind values are only read when agreement is not proven on the bytes.
    checker.push(
      c.rowid,
      big === null ? null : big.toString(),
      tsText,
      !proven && name >= 0 ? c.value(name) : null,
      !proven && kind >= 0 ? c.value(kind) : null,
      bodyBytes,
      c.text(ch),
      c.text(prev),
      c.text(mac),
      proven,
    )
  }
  if (inOneWalk) source.scanWithPredecessor!(place, range, start, each, VERIFY_COLUMNS)
  else source.scan(place, range, each, VERIFY_COLUMNS)
  return checker.finish()
}
