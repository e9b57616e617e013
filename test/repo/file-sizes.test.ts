// Guard: no hand-written source file under src/ is over 500 lines. A file that long holds more than
// one thing; split it by what it holds (the reading layer's columns pass was once 569 lines with a
// 204-line function, the demo writer 633, the renderer's Workspace.tsx 547 before its state moved
// into stores).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '..', '..')
const MAX_LINES = 500

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return sourceFiles(p)
    // Code: TypeScript and JavaScript (the renderer's stylesheet is a list of rules, not code).
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(name) ? [p] : []
  })
}

describe('file sizes', () => {
  it(`no file under src/ is over ${MAX_LINES} lines`, () => {
    const files = sourceFiles(join(ROOT, 'src'))
    expect(files.length).toBeGreaterThan(100)
    const long = files
      .map((f) => [relative(ROOT, f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > MAX_LINES)
      .map(([f, n]) => `${f}: ${n} lines`)
    expect(long).toEqual([])
  })
})
