// A prior found to be of another chain (../../verify/prior-chain.ts) is refused as any bad --prior
// is: `bijotel verify: error: --prior PATH: …`, exit 2. The check needs the chain read, so it comes
// from the verify run, not from reading the file.
import { OtherChainPrior } from '../../verify/prior-chain'
import { UsageError, type Values } from '../args'

export async function refusingOtherChain<T>(values: Values, run: Promise<T>): Promise<T> {
  try {
    return await run
  } catch (e) {
    if (e instanceof OtherChainPrior && typeof values['prior'] === 'string')
      throw new UsageError(`--prior ${values['prior']}: ${e.message}`)
    throw e
  }
}
