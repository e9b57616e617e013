// Which entry a replay file is for, by its name (issue 37): `replay-6373.txt`, `6373.txt`, and the
// fixtures' `<name>.replay-6373.txt`. Shared by `bijotel replay --batch FOLDER` and the app's drop.

/** The seq a replay file's name gives, or null. */
export function seqOfFileName(name: string): number | null {
  const m = /^(?:.*[._-])?replay-(\d{1,15})\.txt$/i.exec(name) ?? /^(\d{1,15})\.txt$/i.exec(name)
  return m ? Number(m[1]) : null
}

/** A JSON Lines batch file (its lines carry their own seqs). */
export function isJsonlName(name: string): boolean {
  return /\.(?:jsonl|ndjson)$/i.test(name)
}

/**
 * The longest replay batch one checkReplayBatch call takes, as base64 characters (the engine's bound;
 * the server's body limit for the call is the same, so a page sends less: the JSON around it).
 */
export const REPLAY_BATCH_BASE64_MAX = 96 * 1024 * 1024
