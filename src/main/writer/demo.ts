// A realistic, deterministic sample chain: LLM calls from several providers and models, with GenAI
// input/output messages, token usage, cost and latency, and replay metadata on some rows (a seed on
// some of those) — sealed exactly like Python BIJOTEL's span processor would seal them. Everything
// comes from a seeded PRNG, so a seed and a count always give the same rows. Fast enough for the
// benchmark: rows are sealed in batches, one BEGIN IMMEDIATE transaction per batch.
import { createHash } from 'node:crypto'
import { existsSync, rmSync, statSync } from 'node:fs'
import { AuditError } from '../errors'
import { sha256Hex } from '../verify/hmac'
import { SEMANTIC_EXCLUDE_ATTRS, type CanonicalDict } from './canonical'
import { ChainWriter, type RowInput } from './chain-writer'
import { canonicalize, serializeKey } from './jcs'
import { recordReplayContext } from '../replay/recorder'

/** The documented demo secret: the 32 ASCII bytes `bijotel-demo-secret-not-for-prod`. Never use it for real chains. */
export const DEMO_SECRET_HEX = Buffer.from('bijotel-demo-secret-not-for-prod', 'utf8').toString('hex')
/** The demo's rotated key, for `--rotate-at` without `--rotated-secret-hex`: `bijotel-demo-rotated-key-2-test!`. */
export const DEMO_ROTATED_SECRET_HEX = Buffer.from('bijotel-demo-rotated-key-2-test!', 'utf8').toString('hex')
export const DEMO_DEFAULT_SEED = 'bijotel-demo'
/** 2025-11-03T08:00:00Z: the first call's start. */
export const DEMO_START_NS = BigInt(Date.UTC(2025, 10, 3, 8, 0, 0)) * 1_000_000n

// ---------------------------------------------------------------------------------------------
// PRNG: sfc32 seeded from SHA-256 of the seed string.

export class Prng {
  private a: number
  private b: number
  private c: number
  private d: number
  constructor(seed: string) {
    const h = createHash('sha256').update(`bijotel-demo-prng:${seed}`).digest()
    this.a = h.readUInt32LE(0)
    this.b = h.readUInt32LE(4)
    this.c = h.readUInt32LE(8)
    this.d = h.readUInt32LE(12) | 1
    for (let i = 0; i < 16; i++) this.next()
  }
  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return (t >>> 0) / 4294967296
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)] as T
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  hex(n: number): string {
    const b = Buffer.allocUnsafe(Math.ceil(n / 8) * 4)
    for (let i = 0; i < b.length; i += 4) b.writeUInt32LE((this.next() * 4294967296) >>> 0, i)
    return b.toString('hex', 0, Math.ceil(n / 2)).slice(0, n)
  }
  base62(n: number): string {
    const abc = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
    let s = ''
    for (let i = 0; i < n; i++) s += abc[Math.floor(this.next() * 62)]
    return s
  }
}

// ---------------------------------------------------------------------------------------------
// Catalogue.

interface ModelInfo {
  request: string
  response: string
  /** USD per 1M input / output tokens. */
  inPrice: number
  outPrice: number
  /** Typical output speed, tokens per second. */
  tps: number
}

interface ProviderInfo {
  name: string
  server: string
  finish: string
  responseId: (r: Prng) => string
  models: ModelInfo[]
}

const PROVIDERS: ProviderInfo[] = [
  {
    name: 'anthropic',
    server: 'api.anthropic.com',
    finish: 'end_turn',
    responseId: (r) => `msg_01${r.base62(22)}`,
    models: [
      {
        request: 'claude-haiku-4-5',
        response: 'claude-haiku-4-5-20251001',
        inPrice: 1,
        outPrice: 5,
        tps: 140,
      },
      {
        request: 'claude-sonnet-4-5',
        response: 'claude-sonnet-4-5-20250929',
        inPrice: 3,
        outPrice: 15,
        tps: 70,
      },
      {
        request: 'claude-opus-4-1',
        response: 'claude-opus-4-1-20250805',
        inPrice: 15,
        outPrice: 75,
        tps: 35,
      },
    ],
  },
  {
    name: 'openai',
    server: 'api.openai.com',
    finish: 'stop',
    responseId: (r) => `chatcmpl-${r.base62(29)}`,
    models: [
      { request: 'gpt-4o-mini', response: 'gpt-4o-mini-2024-07-18', inPrice: 0.15, outPrice: 0.6, tps: 110 },
      { request: 'gpt-4.1', response: 'gpt-4.1-2025-04-14', inPrice: 2, outPrice: 8, tps: 80 },
      { request: 'o4-mini', response: 'o4-mini-2025-04-16', inPrice: 1.1, outPrice: 4.4, tps: 90 },
    ],
  },
  {
    name: 'google',
    server: 'generativelanguage.googleapis.com',
    finish: 'STOP',
    responseId: (r) => r.base62(27),
    models: [
      { request: 'gemini-2.5-flash', response: 'gemini-2.5-flash', inPrice: 0.3, outPrice: 2.5, tps: 160 },
      { request: 'gemini-2.5-pro', response: 'gemini-2.5-pro', inPrice: 1.25, outPrice: 10, tps: 75 },
    ],
  },
  {
    name: 'xai',
    server: 'api.x.ai',
    finish: 'stop',
    responseId: (r) => `${r.hex(8)}-${r.hex(4)}-${r.hex(4)}-${r.hex(4)}-${r.hex(12)}`,
    models: [
      { request: 'grok-4', response: 'grok-4-0709', inPrice: 3, outPrice: 15, tps: 60 },
      { request: 'grok-3-mini', response: 'grok-3-mini', inPrice: 0.3, outPrice: 0.5, tps: 120 },
    ],
  },
  {
    name: 'mistral',
    server: 'api.mistral.ai',
    finish: 'stop',
    responseId: (r) => r.hex(32),
    models: [
      { request: 'mistral-large-latest', response: 'mistral-large-2411', inPrice: 2, outPrice: 6, tps: 65 },
    ],
  },
]

/** Providers come in shuffled blocks of 10 with fixed shares, so any window sees stable proportions. */
const PROVIDER_BLOCK = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3] // anthropic 40%, openai 30%, google 20%, xai 10%
const MISTRAL_EVERY = 25 // and one call in 25 goes to mistral instead

const SYSTEMS = [
  'You are a concise assistant for the ACME Corp support desk. Answer in plain English and never invent order numbers.',
  'You are a senior software engineer reviewing code for a fintech company. Be precise and point out risks first.',
  'You are a helpful assistant. Keep answers short and factual; say when you are unsure.',
  'You are a compliance analyst. Cite the policy section for every claim and flag anything that needs human review.',
  'Tu es un assistant qui répond en français, de façon claire et polie.',
]

const CUSTOMERS = [
  'Dana Whitfield',
  'Kenji Watanabe',
  'Amélie Laurent',
  'Rahul Mehta',
  'Sofia Russo',
  'Jonas Berg',
  'Chloé Martin',
  'Wei Zhang',
]
const PRODUCTS = [
  'the Pro plan',
  'invoice INV-2291',
  'the mobile app',
  'the data export job',
  'API key rotation',
  'the EU billing account',
  'order #48213',
  'the SSO integration',
]
const ISSUES = [
  'was charged twice this month',
  'cannot log in after the password reset',
  'sees a 502 error when uploading files larger than 20 MB',
  'wants to downgrade before the renewal date',
  'reports that the nightly export is missing yesterday’s rows',
  'asks whether personal data is stored outside the EU',
  'received a refund of the wrong amount',
  'cannot find the audit log for last quarter',
]
const CONCEPTS = [
  'idempotency keys',
  'HMAC chaining',
  'write-ahead logging',
  'eventual consistency',
  'rate limiting with token buckets',
  'JSON canonicalization',
  'database connection pooling',
  'retry with exponential backoff',
]
const LANGS = ['Python', 'TypeScript', 'Go', 'SQL']
const TASKS = [
  'returns the ten customers with the highest total spend in 2025',
  'deduplicates events by id while keeping the newest one',
  'parses an ISO-8601 timestamp and converts it to UTC',
  'retries an HTTP call up to three times with jitter',
  'validates that an IBAN has the right checksum',
]
const REVIEWS = [
  'The checkout was fast, but the confirmation email never arrived and support took four days to answer.',
  'Great product. The new dashboard is much clearer and the export finally works with Excel.',
  'Terrible experience — the app crashed twice during onboarding and I lost my settings.',
  'It does what it says. Pricing is a bit high for small teams, but the API is excellent.',
]
const SENTENCES = [
  'Thank you for your patience while we looked into this.',
  'The meeting has been moved to Thursday at 10:00.',
  'Please make sure the backup finished before you restart the server.',
  'Our office will be closed on the public holiday.',
]
const OPENERS = [
  'Sure.',
  'Here is a short answer.',
  'Certainly.',
  'Based on the information provided:',
  'In short:',
]
const FILLER = [
  'the request was processed with the standard retention policy',
  'no personal data leaves the configured region',
  'the change takes effect at the next billing cycle',
  'the logs show the same request id on both attempts',
  'a second confirmation is required for amounts above the limit',
  'the failure happened before the transaction was committed',
  'support can reissue the document within one business day',
  'the previous configuration is kept for thirty days',
  'the operation is safe to retry because it is idempotent',
  'the dashboard reflects the change within five minutes',
]

interface Exchange {
  system: string
  user: string
  answer: string
}

function sentenceList(r: Prng, n: number): string {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const s = r.pick(FILLER)
    out.push(s.charAt(0).toUpperCase() + s.slice(1) + '.')
  }
  return out.join(' ')
}

function exchange(r: Prng, seq: number): Exchange {
  const kind = r.int(0, 6)
  const system = r.pick(SYSTEMS)
  const who = r.pick(CUSTOMERS)
  switch (kind) {
    case 0: {
      const issue = r.pick(ISSUES)
      const product = r.pick(PRODUCTS)
      return {
        system,
        user: `Summarize this support ticket in two sentences and suggest the next step.\n\nTicket #${40000 + seq}: ${who} ${issue} regarding ${product}. They have contacted us ${r.int(2, 5)} times and expect an answer today.`,
        answer: `${r.pick(OPENERS)} ${who} ${issue} regarding ${product} and has followed up several times. Next step: confirm the account details, then ${r.pick(FILLER)}. ${sentenceList(r, r.int(1, 2))}`,
      }
    }
    case 1: {
      const concept = r.pick(CONCEPTS)
      return {
        system,
        user: `Explain ${concept} to a new engineer in three bullet points.`,
        answer: `- ${concept.charAt(0).toUpperCase() + concept.slice(1)} exists so that ${r.pick(FILLER)}.\n- In practice, ${r.pick(FILLER)}.\n- Watch out: ${r.pick(FILLER)}.`,
      }
    }
    case 2: {
      const lang = r.pick(LANGS)
      const task = r.pick(TASKS)
      return {
        system,
        user: `Write a short ${lang} snippet that ${task}. No explanation, just code.`,
        answer:
          lang === 'SQL'
            ? `SELECT customer_id, SUM(amount) AS total\nFROM payments\nWHERE paid_at >= '2025-01-01' AND paid_at < '2026-01-01'\nGROUP BY customer_id\nORDER BY total DESC\nLIMIT 10;`
            : `// ${task}\nfunction solve(input) {\n  const seen = new Map()\n  for (const item of input) seen.set(item.id, item)\n  return [...seen.values()]\n}`,
      }
    }
    case 3: {
      const review = r.pick(REVIEWS)
      const label =
        review.includes('Great') || review.includes('excellent')
          ? 'positive'
          : review.includes('Terrible')
            ? 'negative'
            : 'mixed'
      return {
        system,
        user: `Classify the sentiment of this review as positive, negative or mixed, then give one sentence of justification.\n\nReview: "${review}"`,
        answer: `Sentiment: ${label}. ${sentenceList(r, 1)}`,
      }
    }
    case 4: {
      const s = r.pick(SENTENCES)
      return {
        system,
        user: `Translate into French and Japanese: "${s}"`,
        answer: `Français : « ${s.includes('patience') ? 'Merci de votre patience pendant que nous examinions ce point.' : 'Veuillez noter ce changement.'} »\n日本語：「${s.includes('patience') ? 'ご確認いただきありがとうございます。' : 'ご確認ください。'}」`,
      }
    }
    case 5: {
      const amount = (r.int(1200, 98000) / 100).toFixed(2)
      const inv = `INV-${r.int(1000, 9999)}`
      const due = `2025-12-${String(r.int(1, 28)).padStart(2, '0')}`
      return {
        system,
        user: `Extract the invoice number, the total and the due date as JSON.\n\nInvoice ${inv} for ${who}. Total due: EUR ${amount}. Please pay by ${due}.`,
        answer: `{"invoice_number": "${inv}", "total": ${amount}, "currency": "EUR", "due_date": "${due}"}`,
      }
    }
    default: {
      const q = r.int(12, 99)
      const w = r.int(11, 49)
      return {
        system,
        user: `What is ${q} * ${w}? Answer with the number only.`,
        answer: String(q * w),
      }
    }
  }
}

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
