// An OpenTelemetry JS SpanProcessor that seals ended GenAI spans into a BIJOTEL chain, as Python's
// HmacChainSpanProcessor: same filter (a `gen_ai.*` or `bijotel.mcp.*` attribute), same canonical
// body, same row. Crash-isolated: a span that cannot be sealed (canonicalization refused, disk full,
// database locked beyond the busy timeout…) logs one line and is dropped; nothing is thrown into the
// host, and the next row links to the last one that was sealed.
import type { Context } from '@opentelemetry/api'
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base'
import { oneLine } from '../base/errors'
import { ChainWriter, checkSecret, type SealResult } from './chain-writer'

export type SpanFilter = (span: ReadableSpan) => boolean

/** Python's default filter (v2.13.3+): keep spans with a `gen_ai.*` or `bijotel.mcp.*` attribute. */
export function defaultSpanFilter(span: ReadableSpan): boolean {
  const attrs = span.attributes
  if (!attrs) return false
  for (const k of Object.keys(attrs)) if (k.startsWith('gen_ai.') || k.startsWith('bijotel.mcp.')) return true
  return false
}

export interface ChainSpanProcessorOptions {
  dbPath: string
  secret: Uint8Array
  filter?: SpanFilter
  /** Where the one-line failure message goes (default: console.error). */
  log?: (line: string) => void
  /** Called after each sealed span (tests, metrics). */
  onSealed?: (result: SealResult, span: ReadableSpan) => void
}

export class BijotelChainSpanProcessor implements SpanProcessor {
  private readonly writer: ChainWriter
  private readonly filter: SpanFilter
  private readonly log: (line: string) => void
  private readonly onSealed: ((result: SealResult, span: ReadableSpan) => void) | undefined
  private shut = false

  /** Throws (like Python's constructor) for a secret under 16 bytes or an unusable database. */
  constructor(opts: ChainSpanProcessorOptions) {
    const secret = checkSecret(opts.secret)
    this.writer = ChainWriter.open(opts.dbPath, secret, { mode: 'open' })
    this.filter = opts.filter ?? defaultSpanFilter
    this.log = opts.log ?? ((line) => console.error(line))
    this.onSealed = opts.onSealed
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    try {
      if (this.shut || !this.filter(span)) return
      const result = this.writer.appendSpan(span)
      this.onSealed?.(result, span)
    } catch (e) {
      try {
        const type = e instanceof Error ? e.name : typeof e
        this.log(`bijotel chain write failed (span not chained, host unaffected): ${type}: ${oneLine(e)}`)
      } catch {
        // a failing logger must not reach the host either
      }
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve()
  }

  shutdown(): Promise<void> {
    if (!this.shut) {
      this.shut = true
      try {
        this.writer.close()
      } catch {
        // already closed
      }
    }
    return Promise.resolve()
  }
}
