// `checkChainReplay`: Python's `verify_replay` (reference §6.2) for a row of a chain.db, plus what
// the reference leaves out (§11.7): whether that row itself verifies under a candidate key (a match
// against a forged row proves nothing) and whether a given prompt hashes to the sealed prompt_hash.
import type { ReplayCheck } from '../../shared/replay-types'
import { ChainFile } from '../chain/reader'
import { checkReplayInput } from '../replay/check'
import { textInput, type ReplayInput } from '../replay/text'
import { keyMaterial, type ChainSecrets } from './secrets'

export interface ChainReplayOptions {
  /** The row holding the sealed output hash. */
  seq: number
  /** The replayed output, hashed as its UTF-8 bytes (bytes are hashed as they are). */
  output: string | Uint8Array
  /** The original prompt, if known: checked against the sealed `prompt_hash`. */
  prompt?: string
  /** Candidate keys: with them the row itself is verified (body hash, link, HMAC). */
  secrets?: ChainSecrets
}

/**
 * Replay check of one row of a chain.db (what `bijotel replay --json` prints). Reads the chain
 * through SQLite on a verified private copy, so it needs better-sqlite3.
 */
export async function checkChainReplay(path: string, options: ChainReplayOptions): Promise<ReplayCheck> {
  const keys = keyMaterial(options.secrets)
  const output: ReplayInput =
    typeof options.output === 'string'
      ? textInput(options.output)
      : (() => {
          const bytes = Buffer.from(options.output)
          return { value: bytes, kind: 'text', name: null, bytes, mode: 'raw' }
        })()
  const chain = await ChainFile.open(path)
  try {
    return checkReplayInput(chain, keys, {
      seq: options.seq,
      output,
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    })
  } finally {
    chain.close()
  }
}
