// Issue 35: "1 rows" on screen. A count shown with a noun goes through `counted` (singular for one);
// this scan finds a count in the renderer's text followed by a plural noun written out.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '..', '..', 'src', 'renderer', 'src')
const NOUNS = 'rows|entries|values|keys|findings|versions|anomalies|matches|seqs|files|pages|frames|segments'
// `${n} rows`, {formatCount(n)} rows, ${formatCount(n)} entries — a number then a fixed plural.
const BARE = new RegExp(
  `(\\$\\{[^}]+\\}|\\{formatCount\\([^)]*\\)\\}|formatCount\\([^)]*\\)\\}) (${NOUNS})\\b`,
)

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : []
  })
}

describe('plurals in the renderer', () => {
  it('no count is followed by a written-out plural noun', () => {
    const found: string[] = []
    for (const f of files(ROOT))
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // A ternary that picks the noun (n === 1 ? … : …) agrees already.
          if (BARE.test(line) && !/=== 1 \?|> 1 \?|!== 1 \?/.test(line))
            found.push(`${f}:${i + 1}: ${line.trim()}`)
        })
    expect(found).toEqual([])
  })
})
