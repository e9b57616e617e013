// The app's "compare with an earlier report…" (setPrior) refuses a prior of another chain when it
// is chosen, with the words `verify --prior` refuses it with (../verify/prior-chain.ts), read from
// the chain open now; the verify it is applied to checks again. As verify does with the search on
// (./verify-file.ts), a prior whose head only the files still hold — a proven row placed by its links
// (issue 39, "Priors") — is of this chain: the evidence is searched with the keys held before refusing.
import type { PriorHead } from '../../shared/verify-types'
import type { KeyMaterial } from '../chain/keys'
import type { HeldChain } from '../chain/source/held-chain'
import { searchEvidence } from '../recovery/verdict'
import { liveFacts, OtherChainPrior, priorHeadPlaced, requirePriorOfThisChain } from '../verify/prior-chain'

export async function requirePriorOfOpenChain(
  chain: HeldChain,
  prior: PriorHead,
  keys: KeyMaterial[] = [],
): Promise<void> {
  const facts = await chain.read((source) => liveFacts(source, prior, undefined, keys))
  try {
    requirePriorOfThisChain(prior, facts)
  } catch (e) {
    if (!(e instanceof OtherChainPrior) || keys.length === 0) throw e
    const found = await searchEvidence(chain.searchTarget(), keys)
    if (!priorHeadPlaced(prior, found.result.rows)) throw e
  }
}
