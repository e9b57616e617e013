// Guard: no import cycle among the modules under src/. A cycle makes a layer impossible to read
// (and to load) on its own: the reading layer once had chain/direct/columns.ts ⇄ chain/index.ts and
// direct/btree.ts ⇄ native/leaf-pages.ts. Imports are parsed here (static `import`/`export … from`,
// `import type` included, dynamic `import()` and `require()`), relative specifiers only.
import { relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cycles, importGraph, ROOT, SRC, sourceFiles, specifiers } from './graph'

describe('import cycles', () => {
  it('recognises every way a module is named', () => {
    const text = [
      "import a from './a'",
      "import type { B } from '../b'",
      "import { c,\n  d } from './c'",
      "export { e } from './e'",
      "export * from './f'",
      "const g = await import('./g')",
      "const h = require('./h')",
      "import './side-effect'",
      "// import { x } from './commented'",
      "/* import { y } from './block' */",
      "const url = 'http://example.com/x' // from './not-this'",
    ].join('\n')
    expect(specifiers(text)).toEqual(['./a', '../b', './c', './e', './f', './side-effect', './g', './h'])
  })

  it('finds a cycle, and only cycles', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
    ])
    expect(cycles(g)).toEqual([['a', 'b', 'c'], ['e']])
  })

  it('none among the modules under src/', () => {
    const files = sourceFiles(SRC)
    const graph = importGraph(files)
    expect(files.length).toBeGreaterThan(100)
    const found = cycles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(' ⇄ '))
    expect(found).toEqual([])
  })
})
