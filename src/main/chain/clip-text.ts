// A text cut to its first `units` UTF-16 code units, never inside a surrogate pair: what a listing
// sends of a value the evidence may make megabytes long (a listed row's fields, a provider or model
// name in the overview, a name page or the timeline). The whole value is asked for by itself.
import { LIST_TEXT_UNITS } from '../../shared/chain-types'

/** `v` itself when it is at most `units` long, else its clipped start. */
export function clipText(v: string, units = LIST_TEXT_UNITS): string {
  if (v.length <= units) return v
  const high = v.charCodeAt(units - 1)
  return v.slice(0, high >= 0xd800 && high <= 0xdbff ? units - 1 : units)
}
