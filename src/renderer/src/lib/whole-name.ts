// A provider or model name the engine sent clipped (NameCount.clipped: the chain's name is longer
// than LIST_TEXT_UNITS, perhaps megabytes), asked for whole before it is used as a filter: a filter on
// the clipped start would match no row — or the rows of another name that is exactly that start.
import type { NameCount, NamePage } from '../../../shared/chain-types'

/** The engine's listNames for one name, whole: the `offset`-th name holding `query`. */
export type WholeNameAsk = (query: string, offset: number) => Promise<NamePage>

/**
 * The whole name of `n`, listed `offset`-th among the names holding `query`. The answer must be the
 * same name (it starts with the clipped one and has its rows); otherwise the list moved (a staged
 * open's final stage counted more rows) and nothing is chosen.
 */
export async function wholeName(
  ask: WholeNameAsk,
  n: NameCount,
  query: string,
  offset: number,
): Promise<string> {
  if (!n.clipped) return n.name
  const got = (await ask(query, offset)).names[0]
  if (
    !got ||
    got.clipped ||
    got.count !== n.count ||
    !got.name.startsWith(n.name) ||
    got.name.length <= n.name.length
  )
    throw new Error('the list of names changed; search again')
  return got.name
}
