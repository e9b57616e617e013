// Reading a report page in time linear in its size (issue 38, bounded reading): the embedded block
// is found by plain searches. A page built of many opening tags with no closing one (or closings
// that fall one byte short) made a lazy pattern rescan the page from every opening: 10 MB took
// minutes. Each generated page must be refused in one line, well within a second or two.
import { describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { EMBED_ID, parseReportText } from '../../../src/main/custody/report-file'

const OPEN = `<script type="application/json" id="${EMBED_ID}">\n`

/** Pages of ~10 MB: openings repeated, each followed by a filler that never completes a closing. */
function crowdedPages(): [string, string][] {
  const fillers = ['', '\n</scrip', '\n<\\/script>', '{}', '\n</SCRIPT', ' </script>']
  return fillers.map((f) => {
    const unit = OPEN + f
    return [`openings + ${JSON.stringify(f)}`, '<!doctype html>' + unit.repeat(Math.ceil(10e6 / unit.length))]
  })
}

describe('report pages are read in linear time', () => {
  it('a page crowded with openings of the embedded block is refused within seconds', () => {
    for (const [what, page] of crowdedPages()) {
      for (const input of [page, Buffer.from(page, 'utf8')]) {
        const t0 = performance.now()
        let msg = ''
        try {
          parseReportText(input, 'crafted')
        } catch (e) {
          expect(e, what).toBeInstanceOf(AuditError)
          msg = (e as Error).message
        }
        expect(msg, what).toMatch(/without an embedded report|not I-JSON|does not embed an audit report/)
        expect(msg).not.toContain('\n')
        expect(performance.now() - t0, what).toBeLessThan(3000)
      }
    }
  })

  it('an empty block between the tags is an empty document, not a missing one', () => {
    expect(() => parseReportText(`<!doctype html>${OPEN}\n</script>`, 'crafted')).toThrow(
      /not I-JSON \(RFC 7493\): unexpected end of document at byte \d+/,
    )
  })
})
