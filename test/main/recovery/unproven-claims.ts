// Test data (no vitest here: the browser suite reads it too).
/**
 * Cases whose `.recovery.json` asks for a claim the evidence does not prove (issue 39), with what is
 * held instead. rec-deleted-tail: rows 253–254 are lost whole. In the file's bytes (checked byte by byte
 * for issue 39, and held by fixtures.test.ts): the head 252's hmac_hash is only in 252's own cell (page
 * 118); 253's hmac_hash is nowhere, not even half of it; 254's hmac_hash is only as the prev_hash of
 * 255 (page 120, offset 3904); no body of 253 or 254 survives, and every hash tail on the freed pages
 * 119–122 and in page 118's free space is one of 255–260 (or 257/259 again). The index pages' free
 * space keeps entries for rowids 253 and 254 (trace_id, semantic_body_hash): unsealed, so they link
 * nothing. No sealed link joins the surviving rows 255–260 to the live head 252; their rowids are
 * unsealed. They are listed as one unplaced run with a notice, and sqlite_sequence's witness notice
 * says rows past the head existed — no `truncated` finding (the same shape planted from another
 * chain under the same key must not make one either).
 */
export const UNPROVEN_CLAIMS: Record<string, string> = {
  'rec-deleted-tail': 'rows 255-260 link to no live row (253-254 lost): unplaced run + notices, no finding',
}
