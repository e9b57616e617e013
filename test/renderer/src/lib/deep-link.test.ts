// A finding as a link: the URL hash's fields, read and written back the same.
import { describe, expect, it } from 'vitest'
import {
  EMPTY_LINK,
  formatLink,
  hasView,
  linkOf,
  parseLink,
} from '../../../../src/renderer/src/lib/deep-link'
import { initialView } from '../../../../src/renderer/src/lib/filter-state'

describe('deep links', () => {
  it('round-trips chain, seq, filters and range, paths with spaces and ampersands included', () => {
    const link = {
      chain: '/evidence/case 12/chain&copy.db',
      seq: 57,
      provider: 'openai',
      model: 'gpt-4o mini',
      range: { from_ns: '1764000184869128000', to_ns: '1764043041158981400' },
    }
    const hash = formatLink(link)
    expect(hash.startsWith('#chain=')).toBe(true)
    expect(parseLink(hash)).toEqual(link)
    expect(hasView(link)).toBe(true)
  })

  it('writes nothing for nothing, and keys in a fixed order', () => {
    expect(formatLink(EMPTY_LINK)).toBe('')
    expect(formatLink(linkOf('/a.db', 3, { ...initialView, model: 'm', provider: 'p' }))).toBe(
      '#chain=%2Fa.db&seq=3&provider=p&model=m',
    )
    expect(hasView(linkOf('/a.db', null, initialView))).toBe(false)
  })

  it('drops malformed fields, keeping the rest', () => {
    const l = parseLink('#chain=/a.db&seq=-4&from=5&to=x&provider=&model=m')
    expect(l).toEqual({
      chain: '/a.db',
      seq: null,
      provider: null,
      model: 'm',
      range: null,
      dropped: 'Part of the link was not followed (seq, from/to malformed).',
    })
    expect(parseLink('#seq=1e3').seq).toBeNull()
    expect(parseLink('#from=9&to=8').range).toBeNull()
    expect(parseLink('').chain).toBeNull()
  })
})
