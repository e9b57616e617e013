// The keyless first look: everything a verification checks that needs no key — each body against
// its canonical_hash, each prev_hash against the row before (GENESIS for the first, the
// predecessor for a range), seq contiguity, the unsealed columns against the sealed body, and a
// prior head when one is given — with the HMACs plainly not checked (`hmac_checked: false`). The
// CLI's `verify --keyless` and the app's check on open use it; the verdict has the shape of a keyed
// one, with no key segments.
//
// Recovered rows (the recovery post-pass, src/main/recovery): unless the caller turns it off, the
// files are searched for deleted and earlier rows as a keyed verify searches them; without a key
// each recovered row's body is checked against its canonical_hash and its prev_hash placed against
// the rows it links to, and none is proven (only an HMAC proves a row), so they are listed, never
// made findings (recovery/findings.ts: a finding needs a key that reproduces the row's HMAC).
import type { VerifyVerdict } from '../../shared/verify-types'
import type { HeldChain } from '../chain/source/held-chain'
import { verifyFile, verifyOpened, type FileVerifyResult } from './verify-file'
import type { VerifyOptions } from '../verify/verify'

/** What every keyless run passes to the verifier: no key checks; the recovery post-pass by default. */
const KEYLESS_FILE_OPTIONS = { keyless: true } as const
const RECOVER_BY_DEFAULT = { recover: true } as const

type FileOptions = NonNullable<Parameters<typeof verifyFile>[2]>

export function markKeyless(v: VerifyVerdict): VerifyVerdict {
  return { ...v, hmac_checked: false }
}

/** Keyless verification of the chain at `path` (read in place, or through a verified copy). */
export async function keylessVerifyFile(path: string, opts: FileOptions = {}): Promise<FileVerifyResult> {
  const r = await verifyFile(path, [], { ...RECOVER_BY_DEFAULT, ...opts, ...KEYLESS_FILE_OPTIONS })
  return { ...r, verdict: markKeyless(r.verdict) }
}

/** Keyless verification of an opened chain (the session's), on its verified private copy. */
export async function keylessVerifyOpened(
  chain: HeldChain,
  opts: VerifyOptions & { recover?: boolean } = {},
): Promise<VerifyVerdict> {
  return markKeyless(
    await verifyOpened(chain, [], { ...RECOVER_BY_DEFAULT, ...opts, ...KEYLESS_FILE_OPTIONS }),
  )
}

/**
 * What a keyless verdict does and does not establish, for a reader who must not mistake it for a
 * verification: what a forger without the key could have done and passed, and what not.
 */
export const KEYLESS_STATEMENT: readonly string[] = [
  'HMACs NOT checked: no key was given. Checked without the key: every body against its canonical_hash,',
  'every prev_hash against the row before it, seq contiguity, and the unsealed columns (timestamp_ns,',
  'span_name, span_kind) against the sealed span body.',
  'A forger without the key could NOT have passed these checks after editing a body alone, deleting,',
  'inserting, moving or renumbering rows without rewriting the prev_hash after them, or changing an',
  'unsealed column alone.',
  'A forger without the key COULD have passed them by rewriting a body together with its canonical_hash,',
  'or by relinking rows through their prev_hash: only the HMACs expose that (no HMAC can be made to',
  'match without the key). Verify with the key (--secret-file, --secret-stdin or --secret-hex) to rule it out.',
]

/** The first line of a keyless verdict that found no break. */
export function keylessHeadline(v: VerifyVerdict, ranged: boolean): string {
  if (!ranged) return `Chain structure VALID without the key (${v.entries} entries): HMACs NOT checked.`
  const span = v.first_seq === null ? 'seq None-None' : `seq ${v.first_seq}-${v.last_seq}`
  const total = v.range?.total_in_chain ?? v.entries
  return `Chain segment structure VALID without the key: ${span} (${v.entries} entries of ${total} total): HMACs NOT checked.`
}
