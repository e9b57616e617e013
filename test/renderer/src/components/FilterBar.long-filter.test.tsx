// @vitest-environment jsdom
// A filter holds the chain's name whole (a span name or status chosen from the table, a provider or
// model from the bar), megabytes if the writer made it so: the bar's span and status chips, the
// table's description and the status bar (describeView), and the drift panel's group labels drew it
// whole. Now each is shown as shownName() clips it, and the filter itself keeps the whole name.
// Generated names: long, astral across the clip, bidi and controls (printed as <U+XXXX> by the JSX
// runtime), short ones unchanged.
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { FilterBar } from '../../../../src/renderer/src/components/FilterBar'
import {
  describeView,
  initialView,
  viewReducer,
  type ViewAction,
  type ViewState,
} from '../../../../src/renderer/src/lib/filter-state'
import { groupLabel } from '../../../../src/renderer/src/lib/drift'
import { NAME_SHOWN, shownName } from '../../../../src/renderer/src/lib/format'
import { mulberry32 } from '../../../main/testing/prng'
import { printable } from '../../../../src/shared/printable'
import { overviewOf } from '../test/fake-api'

afterEach(cleanup)

const PIECES = ['a', 'é', '中', '😀', '\u202e', '\u0007', ' ', 'Z']
function nameOf(units: number, rnd: () => number): string {
  const parts: string[] = []
  let n = 0
  while (n < units) {
    const c = PIECES[Math.floor(rnd() * PIECES.length)]!
    parts.push(c)
    n += c.length
  }
  return parts.join('')
}

/** The most a shown name can take as drawn: NAME_SHOWN code points, each at most `<U+XXXXX>`, and '…'. */
const DRAWN_MAX = NAME_SHOWN * 9 + 1

describe('a long filter name is shown clipped, and filters whole', () => {
  it('chips, the description and the drift labels, over generated names', () => {
    const rnd = mulberry32(5151)
    const overview = overviewOf(10)
    for (let i = 0; i < 40; i++) {
      const units = [1, 20, NAME_SHOWN, NAME_SHOWN + 1, 2 * NAME_SHOWN, 5000, 1 << 20][i % 7]!
      const span = nameOf(units, rnd)
      const status = nameOf(units, rnd)
      const model = nameOf(units, rnd)
      let view: ViewState = viewReducer(viewReducer(initialView, { type: 'spanName', value: span }), {
        type: 'status',
        value: status,
      })
      view = viewReducer(view, { type: 'model', value: model })
      const dispatch = (a: ViewAction): void => {
        view = viewReducer(view, a)
      }
      render(
        <FilterBar
          overview={overview}
          view={view}
          dispatch={dispatch}
          flaggedCount={null}
          rangeLabel={null}
        />,
      )
      for (const [f, v] of [
        ['spanName', span],
        ['status', status],
      ] as const) {
        const chip = screen.getByTestId(`filter-chip-${f}`).textContent!
        expect(chip.length).toBeLessThan(DRAWN_MAX + 20)
        if (v.length <= NAME_SHOWN) expect(chip).toContain(printable(v))
      }
      const d = describeView(view)
      expect(d.length).toBeLessThanOrEqual(3 * (shownName('x'.repeat(NAME_SHOWN + 1)).length * 2 + 10))
      expect(d).toContain(shownName(span))
      const label = groupLabel({ provider: span, model })
      expect(label).toBe(`${shownName(span)} / ${shownName(model)}`)
      // Removing the chip clears the whole name; the view held it whole until then.
      expect(view.spanName).toBe(span)
      fireEvent.click(screen.getByRole('button', { name: 'remove the span filter' }))
      expect(view.spanName).toBeNull()
      cleanup()
    }
  })
})
