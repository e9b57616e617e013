// `report verify` of a report's replay batches (round 11): a batch past REPLAY_BATCH_KEEP checks
// keeps the first ones and counts the rest, and the report says how many were made and not kept.
// The checks not kept are in no file, so the count cannot be re-derived from the evidence; what is
// held here is that each record agrees with the checks the report lists and with how a batch keeps
// them: a count of checks not kept beside fewer kept than the bound (inflated), a record pointing
// past or across the listed checks, and a list of REPLAY_BATCH_KEEP or more checks that no record
// accounts for (a record removed) read DIFFERS or NOT CHECKED. Set to 0 beside exactly the bound, a
// count reads the same as a batch of exactly that many lines: only the report's signature, checked
// against the auditor's --public-key, holds it then (said as such).
import { REPLAY_BATCH_KEEP, type ReplayBatchRecord } from '../../shared/report-types'
import type { FieldList } from './check-fields'

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0

/** What record `r` would be were it consistent (null: no consistent record reads so), and why not. */
function expectedRecord(
  r: Record<string, unknown>,
  from: number,
  listed: number,
): [ReplayBatchRecord | null, string?] {
  const { first, kept, not_kept } = r
  if (!isCount(first) || !isCount(kept) || !isCount(not_kept)) return [null, 'not three counts']
  if (first < from)
    return [null, `starts at check ${first}, inside the batch or checks before it (from ${from})`]
  if (first + kept > listed)
    return [null, `points at checks ${first}-${first + kept - 1}, past the ${listed} the report lists`]
  if (kept > REPLAY_BATCH_KEEP)
    return [null, `${kept} checks kept: a batch keeps at most ${REPLAY_BATCH_KEEP}`]
  if (not_kept > 0 && kept < REPLAY_BATCH_KEEP)
    return [
      null,
      `${not_kept} checks said not kept beside ${kept} kept: a batch keeps the first ${REPLAY_BATCH_KEEP} before it stops keeping any`,
    ]
  return [{ first, kept, not_kept }]
}

export function checkReplayBatches(f: FieldList, doc: Record<string, unknown>): void {
  const listed = Array.isArray(doc['replay_checks']) ? doc['replay_checks'].length : 0
  const given = doc['replay_batches']
  if (!Array.isArray(given)) {
    if (given !== undefined) {
      f.compare('replay_batches', given, null, 'not a list of batch records')
      return
    }
    // Written before schema 1.3.0: without records, fewer checks than one batch keeps cannot hide any.
    if (listed >= REPLAY_BATCH_KEEP)
      f.notChecked(
        'replay_batches',
        given,
        `the report lists ${listed} replay checks and does not say whether a batch made more than it kept`,
      )
    return
  }
  let from = 0
  let accounted = 0
  given.forEach((r: unknown, i) => {
    const at = `replay_batches[${i}]`
    const rec = typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as Record<string, unknown>) : {}
    const [want, why] = expectedRecord(rec, from, listed)
    f.compare(at, r, want, why)
    if (!want) return
    from = want.first + want.kept
    accounted += want.kept
    if (want.not_kept > 0)
      f.notChecked(
        `${at}.not_kept`,
        want.not_kept,
        `${want.not_kept} checks made and not kept: in no file, so not re-derived (the ${want.kept} kept are compared)`,
        true,
      )
    else if (want.kept === REPLAY_BATCH_KEEP)
      f.notChecked(
        `${at}.not_kept`,
        0,
        `a batch that kept exactly ${REPLAY_BATCH_KEEP} checks: whether it made more is in no file; the signature against the auditor's --public-key holds this count`,
        true,
      )
  })
  if (listed - accounted >= REPLAY_BATCH_KEEP)
    f.notChecked(
      'replay_batches',
      given.length,
      `${listed - accounted} replay checks listed outside any batch record: as many as a batch keeps, and no record says whether it made more`,
    )
}
