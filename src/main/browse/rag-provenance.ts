// The `=== RAG Provenance ===` block of `inspect` (Python BIJOTEL v2.6.0, `_print_rag_sources` in
// its cmd_inspect.py), line for line: printed only for a row whose attributes carry
// `bijotel.rag.source_count`, after the status and cost lines. Python crashes with a traceback on a
// source that is not an object or on a `similarity_score` or `document_id` its format cannot take;
// here such a value is printed as Python's str() of it instead (hostile input gets an answer).
import { PyFloat, pyFixed, pyJsonLoads } from '../python/pyformat'
import { pyRepr, pyStr } from '../python/repr'
import { pyTruthy } from '../python/truthy'
import { pySlice, type PyDict } from '../python/py-body'
import type { PyValue } from '../python/pyformat'

const SHOWN = 5

/** f"{x:.3f}" where Python can format x (int, float, bool); str() of anything else. */
function fixed3(v: unknown): string {
  if (typeof v === 'number') return pyFixed(v, 3)
  if (typeof v === 'boolean') return pyFixed(v ? 1 : 0, 3)
  if (typeof v === 'bigint') return pyFixed(Number(v), 3)
  if (v instanceof PyFloat) return pyFixed(v.value, 3)
  return pyStr(v)
}

/** `(s.get("document_id") or "")[:36]`: the first 36 code points of a string (items of a list). */
function documentId(v: unknown): string {
  if (!pyTruthy(v as PyValue)) return ''
  if (typeof v === 'string') return pySlice(v, 36)
  if (Array.isArray(v)) return pyStr(v.slice(0, 36))
  return pyStr(v)
}

function sourceLine(i: number, s: unknown): string {
  if (!(s instanceof Map)) return `  source ${i}: ${pyStr(s)}`
  const doc = documentId(s.get('document_id'))
  const chunk = s.has('chunk_index') ? pyStr(s.get('chunk_index')) : '?'
  const sim = s.has('similarity_score') ? fixed3(s.get('similarity_score')) : '0.000'
  const retriever = s.get('retriever')
  const retr = pyTruthy(retriever) ? pyStr(retriever) : '-'
  return `  source ${i}: doc=${doc}  chunk=${chunk}  retriever=${retr}  sim=${sim}`
}

/** The block's lines, the blank line before its header included; none without a source count. */
export function ragProvenanceLines(attrs: PyDict): string[] {
  const count = attrs.get('bijotel.rag.source_count')
  if (count === undefined || count === null) return []
  const orNone = (v: unknown): string => (pyTruthy(v as PyValue) ? pyStr(v) : '(none)')
  const lines = [
    '',
    '=== RAG Provenance ===',
    `source_count:   ${pyStr(count)}`,
    `retriever:      ${orNone(attrs.get('bijotel.rag.retriever_id'))}`,
    `embedding:      ${orNone(attrs.get('bijotel.rag.embedding_model'))}`,
  ]
  const tokens = attrs.get('bijotel.rag.total_context_tokens')
  if (tokens !== undefined && tokens !== null) lines.push(`context_tokens: ${pyStr(tokens)}`)
  const raw = attrs.get('bijotel.rag.sources')
  if (!pyTruthy(raw)) return lines
  let sources: unknown
  try {
    // json.loads takes only text: anything else is its TypeError, caught as the decode error is.
    if (typeof raw !== 'string') throw new TypeError('not str')
    sources = pyJsonLoads(raw, { typed: true })
  } catch {
    lines.push(`  (sources JSON unparseable: ${pyRepr(raw)})`)
    return lines
  }
  if (!Array.isArray(sources)) return lines
  sources.slice(0, SHOWN).forEach((s, i) => lines.push(sourceLine(i + 1, s)))
  if (sources.length > SHOWN) lines.push(`  ... and ${sources.length - SHOWN} more`)
  return lines
}
