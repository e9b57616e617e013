// The demo chain's material: a seeded PRNG and a catalogue of providers, models, prompts and answers
// from which ./demo.ts makes realistic LLM calls. Everything comes from the PRNG, so a seed always
// gives the same calls.
import { createHash } from 'node:crypto'

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

export interface ModelInfo {
  request: string
  response: string
  /** USD per 1M input / output tokens. */
  inPrice: number
  outPrice: number
  /** Typical output speed, tokens per second. */
  tps: number
}

export interface ProviderInfo {
  name: string
  server: string
  finish: string
  responseId: (r: Prng) => string
  models: ModelInfo[]
}

export const PROVIDERS: ProviderInfo[] = [
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
export const PROVIDER_BLOCK = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3] // anthropic 40%, openai 30%, google 20%, xai 10%
export const MISTRAL_EVERY = 25 // and one call in 25 goes to mistral instead

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

export interface Exchange {
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

export function exchange(r: Prng, seq: number): Exchange {
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
