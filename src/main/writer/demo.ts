// A realistic, deterministic sample chain: LLM calls from several providers and models, with GenAI
// input/output messages, token usage, cost and latency, and replay metadata on some rows (a seed on
// some of those) — sealed exactly like Python BIJOTEL's span processor would seal them. Everything
// comes from a seeded PRNG, so a seed and a count always give the same rows. Fast enough for the
// benchmark: rows are sealed in batches, one BEGIN IMMEDIATE transaction per batch.
import { existsSync, rmSync, statSync } from 'node:fs'
import { AuditError } from '../base/errors'
import { sha256Hex } from '../chain/seal'
import { SEMANTIC_EXCLUDE_ATTRS, type CanonicalDict } from './canonical'
import { ChainWriter, type RowInput } from './chain-writer'
import { canonicalize, serializeKey } from '../chain/jcs'
import { recordReplayContext } from './replay-context'
import { exchange, MISTRAL_EVERY, Prng, PROVIDER_BLOCK, PROVIDERS, type ProviderInfo } from './demo-catalogue'

export { Prng } from './demo-catalogue'

/** The documented demo secret: the 32 ASCII bytes `bijotel-demo-secret-not-for-prod`. Never use it for real chains. */
export const DEMO_SECRET_HEX = Buffer.from('bijotel-demo-secret-not-for-prod', 'utf8').toString('hex')
/** The demo's rotated key, for `--rotate-at` without `--rotated-secret-hex`: `bijotel-demo-rotated-key-2-test!`. */
export const DEMO_ROTATED_SECRET_HEX = Buffer.from('bijotel-demo-rotated-key-2-test!', 'utf8').toString('hex')
export const DEMO_DEFAULT_SEED = 'bijotel-demo'
/** 2025-11-03T08:00:00Z: the first call's start. */
export const DEMO_START_NS = BigInt(Date.UTC(2025, 10, 3, 8, 0, 0)) * 1_000_000n

// ---------------------------------------------------------------------------------------------
// Rows.

/**
 * The canonical and semantic bodies of a span dict in one pass: each attribute is serialized once
 * and shared by both (the top-level keys are written in their JCS order). A test checks the result
 * equals canonicalBytes() of the dict and of its semantic dict.
 */
export function demoBodies(dict: CanonicalDict): { body: Buffer; semantic: Buffer } {
  const keys = Object.keys(dict.attributes).sort()
  let full = ''
  let sem = ''
  for (const k of keys) {
    const v = dict.attributes[k]
    if (v === undefined) continue
    const member = serializeKey(k) + ':' + canonicalize(v)
    full += full === '' ? member : ',' + member
    if (!SEMANTIC_EXCLUDE_ATTRS.has(k)) sem += sem === '' ? member : ',' + member
  }
  const kind = canonicalize(dict.kind)
  const name = canonicalize(dict.name)
  const body =
    `{"attributes":{${full}},"end_time_ns":${canonicalize(dict.end_time_ns)},"kind":${kind},"name":${name},` +
    `"start_time_ns":${canonicalize(dict.start_time_ns)},"status_code":${canonicalize(dict.status_code)},` +
    `"status_description":${canonicalize(dict.status_description)}}`
  return {
    body: Buffer.from(body, 'utf8'),
    semantic: Buffer.from(`{"attributes":{${sem}},"kind":${kind},"name":${name}}`, 'utf8'),
  }
}

export interface DemoRowInfo {
  seq: number
  model: string
  provider: string
  hasReplay: boolean
  deterministic: boolean
  error: boolean
  /** The assistant text whose SHA-256 is the sealed output_hash (when hasReplay). */
  output: string
  prompt: string
}

export interface DemoRow {
  row: RowInput
  info: DemoRowInfo
  /** The canonical dict the body was made from. */
  dict: CanonicalDict
}

/** Generates the rows of a demo chain one by one (seq = 1, 2, …). */
export class DemoGenerator {
  private readonly r: Prng
  private seq = 0
  private endNs: bigint
  private block: number[] = []

  constructor(seed: string = DEMO_DEFAULT_SEED, startNs: bigint = DEMO_START_NS) {
    this.r = new Prng(seed)
    this.endNs = startNs
  }

  private nextProvider(): ProviderInfo {
    if ((this.seq + 1) % MISTRAL_EVERY === 0) return PROVIDERS[4] as ProviderInfo
    if (this.block.length === 0) {
      const b = [...PROVIDER_BLOCK]
      for (let i = b.length - 1; i > 0; i--) {
        const j = Math.floor(this.r.next() * (i + 1))
        ;[b[i], b[j]] = [b[j] as number, b[i] as number]
      }
      this.block = b
    }
    return PROVIDERS[this.block.pop() as number] as ProviderInfo
  }

  next(): DemoRow {
    const r = this.r
    this.seq++
    const seq = this.seq
    const provider = this.nextProvider()
    const model = r.pick(provider.models)
    const ex = exchange(r, seq)
    const error = r.chance(0.03)
    const hasReplay = !error && r.chance(0.45)
    const deterministic = hasReplay && r.chance(0.5)
    const temperature = deterministic ? 0 : r.pick([0.2, 0.7, 1])
    const maxTokens = r.pick([256, 512, 1024, 2048])

    const inputTokens = Math.round((ex.system.length + ex.user.length) / 3.6) + r.int(8, 30)
    const outputTokens = error ? 0 : Math.max(1, Math.round(ex.answer.length / 3.8) + r.int(0, 12))
    // ~20 calls per hour: gaps uniform in [90 s, 270 s) with a random nanosecond part.
    const gapNs = BigInt(90_000 + r.int(0, 179_999)) * 1_000_000n + BigInt(r.int(0, 999_999))
    this.endNs += gapNs
    const latencyMs = error
      ? r.int(180, 2500) + r.next()
      : 350 + (outputTokens / model.tps) * 1000 + r.int(0, 900) + r.next()
    const latencyNs = BigInt(Math.round(latencyMs * 1_000_000))
    const end = this.endNs
    const start = end - latencyNs
    const cost =
      Math.round(((inputTokens * model.inPrice + outputTokens * model.outPrice) / 1_000_000) * 1e6) / 1e6

    const attrs: Record<string, unknown> = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': model.request,
      'gen_ai.request.max_tokens': maxTokens,
      'gen_ai.request.temperature': temperature,
      'gen_ai.input.messages': [
        { role: 'system', parts: [{ type: 'text', content: ex.system }] },
        { role: 'user', parts: [{ type: 'text', content: ex.user }] },
      ],
      'server.address': provider.server,
      'server.port': 443,
      'gen_ai.usage.input_tokens': inputTokens,
      'gen_ai.usage.output_tokens': outputTokens,
      'bijotel.latency_ms': Math.round(latencyMs * 10) / 10,
      'bijotel.cost_usd': cost,
    }
    // Older instrumentations wrote gen_ai.system instead of gen_ai.provider.name.
    if (r.chance(0.1)) attrs['gen_ai.system'] = provider.name
    else attrs['gen_ai.provider.name'] = provider.name
    if (!error) {
      attrs['gen_ai.response.id'] = provider.responseId(r)
      attrs['gen_ai.response.model'] = model.response
      attrs['gen_ai.response.finish_reasons'] = [provider.finish]
      attrs['gen_ai.output.messages'] = [
        { role: 'assistant', parts: [{ type: 'text', content: ex.answer }], finish_reason: provider.finish },
      ]
    } else {
      attrs['error.type'] = r.pick(['RateLimitError', 'APITimeoutError', 'InternalServerError'])
    }
    if (hasReplay) {
      const replay = recordReplayContext({
        prompt: [
          { role: 'system', content: ex.system },
          { role: 'user', content: ex.user },
        ],
        output: ex.answer,
        model: model.request,
        modelVersion: model.response,
        ...(deterministic ? { seed: r.int(1, 99999) } : {}),
        temperature,
      })
      Object.assign(attrs, replay)
    }

    const dict: CanonicalDict = {
      name: `chat ${model.request}`,
      kind: 'CLIENT',
      attributes: attrs,
      status_code: error ? 'ERROR' : 'UNSET',
      status_description: error
        ? `${String(attrs['error.type'])}: ${attrs['error.type'] === 'RateLimitError' ? '429 Too Many Requests' : 'upstream failure'}`
        : null,
      start_time_ns: start.toString(),
      end_time_ns: end.toString(),
    }
    const { body, semantic } = demoBodies(dict)
    return {
      row: {
        canonicalBody: body,
        canonicalHash: sha256Hex(body),
        timestampNs: end,
        traceId: r.hex(32),
        spanId: r.hex(16),
        spanName: dict.name,
        spanKind: 'CLIENT',
        semanticBodyHash: sha256Hex(semantic),
      },
      info: {
        seq,
        model: model.response,
        provider: provider.name,
        hasReplay,
        deterministic,
        error,
        output: ex.answer,
        prompt: ex.user,
      },
      dict,
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Writing a demo chain.

export interface DemoOptions {
  dbPath: string
  count: number
  secret?: Buffer
  seed?: string
  /** From this seq on, rows are sealed with `rotatedSecret` (linking to the old head). */
  rotateAt?: number
  rotatedSecret?: Buffer
  /** Replace an existing file (and its -wal/-shm). */
  force?: boolean
  batchSize?: number
  onProgress?: (done: number, total: number) => void
  /** Called for every row (cheap metadata only), e.g. to pick replay samples. */
  onRow?: (info: DemoRowInfo) => void
}

export interface DemoResult {
  path: string
  rows: number
  firstSeq: number | null
  lastSeq: number | null
  head: string
  bytes: number
  elapsedMs: number
  rotatedAt: number | null
}

export function writeDemoChain(opts: DemoOptions): DemoResult {
  const t0 = performance.now()
  if (!Number.isSafeInteger(opts.count) || opts.count < 0)
    throw new AuditError('bad_argument', `--count must be a non-negative integer, got ${opts.count}`)
  if (opts.rotateAt !== undefined && (!Number.isSafeInteger(opts.rotateAt) || opts.rotateAt < 2)) {
    throw new AuditError('bad_argument', `--rotate-at must be a seq >= 2, got ${opts.rotateAt}`)
  }
  const present = ['', '-wal', '-shm', '-journal'].filter((suffix) => existsSync(opts.dbPath + suffix))
  if (present.length > 0) {
    if (!opts.force) {
      throw new AuditError(
        'bad_argument',
        `refusing to overwrite existing file: ${opts.dbPath}${present[0]} (pass --force to replace it)`,
      )
    }
    if (present.includes('') && !statSync(opts.dbPath).isFile())
      throw new AuditError('not_a_file', `not a regular file: ${opts.dbPath}`)
    for (const suffix of present) rmSync(opts.dbPath + suffix, { force: true })
  }
  const secret = opts.secret ?? Buffer.from(DEMO_SECRET_HEX, 'hex')
  const rotated =
    opts.rotateAt !== undefined ? (opts.rotatedSecret ?? Buffer.from(DEMO_ROTATED_SECRET_HEX, 'hex')) : null
  const w = ChainWriter.open(opts.dbPath, secret, { mode: 'create', bulk: true })
  w.beginBulkLoad()
  const gen = new DemoGenerator(opts.seed ?? DEMO_DEFAULT_SEED)
  const batchSize = Math.max(1, opts.batchSize ?? 2000)
  let done = 0
  let rotatedAt: number | null = null
  try {
    while (done < opts.count) {
      let n = Math.min(batchSize, opts.count - done)
      // A batch never straddles the rotation: the key changes between transactions.
      if (rotated && rotatedAt === null && opts.rotateAt !== undefined) {
        const firstOfBatch = done + 1
        if (firstOfBatch >= opts.rotateAt) {
          w.rotateSecret(rotated)
          rotatedAt = opts.rotateAt
        } else {
          n = Math.min(n, opts.rotateAt - firstOfBatch)
        }
      }
      const rows: RowInput[] = new Array<RowInput>(n)
      for (let i = 0; i < n; i++) {
        const d = gen.next()
        rows[i] = d.row
        opts.onRow?.(d.info)
      }
      w.appendRows(rows)
      done += n
      opts.onProgress?.(done, opts.count)
    }
    w.endBulkLoad()
    const head = w.head()
    w.close()
    return {
      path: opts.dbPath,
      rows: done,
      firstSeq: done > 0 ? 1 : null,
      lastSeq: done > 0 ? done : null,
      head,
      bytes: statSync(opts.dbPath).size,
      elapsedMs: performance.now() - t0,
      rotatedAt,
    }
  } catch (e) {
    w.close()
    // A half-written demo file is of no use (and was written without a journal): remove it.
    for (const suffix of ['', '-wal', '-shm']) rmSync(opts.dbPath + suffix, { force: true })
    throw e
  }
}
