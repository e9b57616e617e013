// @vitest-environment jsdom
// The renderer's JSX runtime (src/renderer/src/jsx) shows every element's text as data: each code
// point printable() numbers — every one of the BMP and the supplementary planes' tag and format
// characters, not a sample — drawn by any element, in a text child or an attribute the browser shows
// or reads out, reaches the DOM as `<U+XXXX>`. The whole app is then walked with a chain whose every
// text field holds them.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { hasUnprintable, printable } from '../../../../src/shared/printable'
import type { ChainOverview, EntryDetail, EntrySummary } from '../../../../src/shared/chain-types'
import { ApiProvider } from '../../../../src/renderer/src/app/api-context'
import { App } from '../../../../src/renderer/src/app/App'
import { fakeApi, overviewOf, summary } from '../test/fake-api'

/** Every code point printable() writes as a number: the whole BMP (lone surrogates included) and planes 1–16's. */
function unprintables(): string[] {
  const out: string[] = []
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp > 0xffff && cp < 0xe0000) continue
    const c = String.fromCodePoint(cp)
    if (hasUnprintable(c)) out.push(c)
  }
  return out
}
const ALL = unprintables()

/** Every string the document draws or reads out, as the browser test walks it (e2e/hostile-text.spec.ts). */
function everythingShown(root: HTMLElement): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = []
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT)
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) {
      const parent = n.parentElement!
      const text = parent.closest('pre')
        ? (n.textContent ?? '').replace(/[\n\t]/g, ' ')
        : (n.textContent ?? '')
      out.push({ where: parent.tagName, text })
      continue
    }
    const el = n as Element
    for (const a of ['title', 'alt', 'placeholder', 'aria-label', 'aria-description', 'aria-valuetext']) {
      const v = el.getAttribute(a)
      if (v !== null)
        out.push({ where: `${el.tagName}@${a}`, text: a === 'title' ? v.replace(/\n/g, ' ') : v })
    }
  }
  return out
}

class RO {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
beforeEach(() => {
  localStorage.clear()
  window.history.replaceState(null, '', '/')
  vi.stubGlobal('ResizeObserver', RO)
})
afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('the JSX runtime shows text as data', () => {
  it(`numbers each of the ${ALL.length} unprintable code points in text children and shown attributes`, () => {
    expect(ALL.length).toBeGreaterThan(2000)
    for (let i = 0; i < ALL.length; i += 64) {
      const chunk = ALL.slice(i, i + 64)
      const text = `a${chunk.join('b')}c`
      const { container } = render(
        <div>
          <span data-testid="child" title={text} aria-label={text}>
            {text}
          </span>
          <span data-testid="mixed">
            seq {i}: {text} {[text, <b key="b">{text}</b>]}
          </span>
          <input data-testid="input" placeholder={text} alt={text} readOnly />
          <ul>
            {chunk.map((c) => (
              <li key={c.codePointAt(0)}>{c}</li>
            ))}
          </ul>
        </div>,
      )
      expect(screen.getByTestId('child').textContent).toBe(printable(text))
      expect(screen.getByTestId('child').getAttribute('aria-label')).toBe(printable(text))
      expect(screen.getByTestId('input').getAttribute('placeholder')).toBe(printable(text))
      expect(everythingShown(container).filter((s) => hasUnprintable(s.text))).toEqual([])
      cleanup()
    }
  })

  it("keeps a <pre>'s own line breaks and a title's lines, and a field's value as typed", () => {
    const path = '/evidence/case\u202efdp/chain.db'
    render(
      <div>
        <pre data-testid="pre">{'{\n\t"a": "x\u2028y"\n}'}</pre>
        <span data-testid="title" title={'line one\nline\u202etwo'} />
        <input data-testid="field" value={path} readOnly />
      </div>,
    )
    expect(screen.getByTestId('pre').textContent).toBe('{\n\t"a": "x<U+2028>y"\n}')
    expect(screen.getByTestId('title').getAttribute('title')).toBe('line one\nline<U+202E>two')
    // A value is sent back as typed (an open asks for the exact path); the field shows it itself.
    expect((screen.getByTestId('field') as HTMLInputElement).value).toBe(path)
  })
})

describe('the app shows a chain\u2019s text as data', () => {
  // Each field the engine hands the screen, from one generator over all the unprintable code points.
  let k = 0
  const hostile = (word: string): string =>
    `${word}${ALL[k++ % ALL.length]}${word}${ALL[(k * 7919) % ALL.length]}x`

  it('in the evidence, the filters, the table and the entry detail', async () => {
    const path = `/evidence/${hostile('case')}/chain.db`
    const base = overviewOf(40, path)
    const overview: ChainOverview = {
      ...base,
      providers: [0, 1, 2].map((i) => ({ name: hostile(`p${i}`), count: 10 })),
      models: [0, 1, 2].map((i) => ({ name: hostile(`m${i}`), count: 10 })),
    }
    const row = (seq: number): EntrySummary => ({
      ...summary(seq),
      span_name: hostile('chat'),
      span_kind: hostile('CLIENT'),
      provider: overview.providers[seq % 3]!.name,
      model: overview.models[seq % 3]!.name,
    })
    const rows = new Map<number, EntrySummary>()
    const summaryOf = (seq: number): EntrySummary => {
      if (!rows.has(seq)) rows.set(seq, row(seq))
      return rows.get(seq)!
    }
    const { api } = fakeApi({
      rows: 40,
      info: { initial_path: path },
      overrides: {
        openChain: async () => overview,
        listEntries: async (req) => {
          const out: EntrySummary[] = []
          for (let i = req.offset; i < Math.min(40, req.offset + req.limit); i++) out.push(summaryOf(i + 1))
          return { total: 40, offset: req.offset, rows: out }
        },
        getEntry: async ({ seq }) => {
          const d: EntryDetail = {
            ...summaryOf(seq),
            trace_id: hostile('ab'),
            span_id: hostile('cd'),
            prev_hash: '0'.repeat(64),
            hmac_hash: 'f'.repeat(64),
            semantic_body_hash: hostile('sem'),
            body_bytes: 40,
            body_pretty: `{\n  "name": "${hostile('n')}",\n  "${hostile('key')}": "${hostile('v')}"\n}`,
            body_text: null,
            body_error: null,
            prev_seq: seq > 1 ? seq - 1 : null,
            next_seq: seq < 40 ? seq + 1 : null,
            replay: null,
          }
          return d
        },
      },
    })
    const { container } = render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getAllByTestId('entry-row').length).toBeGreaterThan(0))
    fireEvent.click(screen.getAllByTestId('entry-row')[0]!)
    await waitFor(() => expect(screen.getByTestId('detail-seq').textContent).toBe('1'))
    await waitFor(() => expect(screen.getByTestId('entry-body').textContent).toContain('<U+'))
    const shown = everythingShown(container)
    // Not an empty walk: the hostile names are on screen, each as numbers.
    expect(shown.filter((s) => s.text.includes('<U+')).length).toBeGreaterThan(20)
    expect(shown.filter((s) => hasUnprintable(s.text))).toEqual([])
  })
})
