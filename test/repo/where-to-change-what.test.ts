// docs/where-to-change-what.md names the files each common change touches: every path it names
// (in backticks, starting at a top-level folder of the repository) must exist, so the page cannot
// silently point at a file that moved. Templates (`<name>`) are checked up to their folder.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './graph'

const PAGE = join(ROOT, 'docs', 'where-to-change-what.md')

/** The repository paths a Markdown text names in backticks. */
function namedPaths(text: string): string[] {
  return [...text.matchAll(/`((?:src|test|e2e|native|docs|scripts)\/[^`\s]*)`/g)].map((m) => m[1]!)
}

/** A path with a `<placeholder>` stands for its folder. */
const checked = (p: string): string => (p.includes('<') ? p.slice(0, p.lastIndexOf('/', p.indexOf('<'))) : p)

describe('docs/where-to-change-what.md', () => {
  it('reads paths the way they are written (and not prose)', () => {
    expect(namedPaths('see `src/a.ts`, `test/b/` and `npm run x`, not src/c.ts')).toEqual([
      'src/a.ts',
      'test/b/',
    ])
    expect(checked('src/main/cli/commands/<name>-info.ts')).toBe('src/main/cli/commands')
  })
  it('names only paths that exist', () => {
    const paths = namedPaths(readFileSync(PAGE, 'utf8'))
    expect(paths.length).toBeGreaterThan(30)
    expect(paths.filter((p) => !existsSync(join(ROOT, checked(p))))).toEqual([])
  })
})
