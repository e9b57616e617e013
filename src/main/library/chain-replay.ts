// Replay verification (reference §6): `recordReplayContext` gives the `bijotel.replay.*` attributes
// to set on an LLM call's span; `verifyReplay(entry, output)` compares a replayed output with the
// sealed output hash, as Python's `verify_replay`; `checkChainReplay` does it for a row of a chain.db
// and also says whether that row verifies (a match against a forged row proves nothing, §11.7).
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
