// Reading a report page in time linear in its size (issue 38, bounded reading): the embedded block
// is found by plain searches. A page built of many opening tags with no closing one (or closings
// that fall one byte short) made a lazy pattern rescan the page from every opening: 10 MB took
// minutes. Each generated page must be refused in one line within seconds (the bound allows for a loaded machine).
import { describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { EMBED_ID, parseReportText } from '../../../src/main/custody/report-file'
import { jsonForScript } from '../../../src/main/custody/html/escape'
import { REPORT_SCHEMA_ID } from '../../../src/shared/report-types'

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
        expect(performance.now() - t0, what).toBeLessThan(10_000)
      }
    }
  })

  it('a small page embedding a report of many findings is refused before its page is drawn', () => {
    const shapes = [
      { kind: 'hmac_mismatch', from_seq: 1, to_seq: 1, count: 1 },
      { kind: '', from_seq: 0, to_seq: 0, count: 0 },
      {},
    ]
    for (const n of [60_000, 150_000, 280_000])
      for (const f of shapes) {
        const report = {
          $schema: REPORT_SCHEMA_ID,
          schema_version: '1.2.0',
          verification: { keys: [], verdict: { valid: false, findings: Array.from({ length: n }, () => f) } },
        }
        const page = `<!doctype html>\n${OPEN}${jsonForScript(report)}\n</script>\n</body>\n</html>\n`
        const t0 = performance.now()
        expect(() => parseReportText(Buffer.from(page), 'crafted')).toThrow(
          /^crafted: the page is not the one this program draws from the report embedded in it: it has \d+ bytes, and the page drawn from its report would have more than \d+$/,
        )
        expect(performance.now() - t0, `${n} findings`).toBeLessThan(10_000)
      }
  })

  it('an empty block between the tags is an empty document, not a missing one', () => {
    expect(() => parseReportText(`<!doctype html>${OPEN}\n</script>`, 'crafted')).toThrow(
      /not I-JSON \(RFC 7493\): unexpected end of document at byte \d+/,
    )
  })
})
