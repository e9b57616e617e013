// The app's "compare with an earlier report…" (setPrior) refuses a prior of another chain when it
// is chosen, with the words `verify --prior` refuses it with (../verify/prior-chain.ts), read from
// the chain open now; the verify it is applied to checks again.
import type { PriorHead } from '../../shared/verify-types'
import type { HeldChain } from '../chain/source/held-chain'
import { liveFacts, requirePriorOfThisChain } from '../verify/prior-chain'

export async function requirePriorOfOpenChain(chain: HeldChain, prior: PriorHead): Promise<void> {
  const facts = await chain.read((source) => liveFacts(source, prior))
  requirePriorOfThisChain(prior, facts)
}
