// A service that seals every LLM call it makes into a BIJOTEL chain (chain.db), as Python BIJOTEL's
// HmacChainSpanProcessor does: each call is an OpenTelemetry `gen_ai.*` span, ended on a tracer
// provider that has BijotelChainSpanProcessor, with the replay attributes of recordReplayContext so
// an auditor can later check that a replay reproduces the sealed output.
//
//   BIJOTEL_HMAC_SECRET=<hex key, >= 16 bytes> node examples/seal-llm-calls.mjs chain.db [calls]
//   bijotel verify --db chain.db            # the same key in BIJOTEL_HMAC_SECRET
//
// The LLM client is a stub (deterministic answers, no network): put your own client in its place.
import { setTimeout as sleep } from 'node:timers/promises'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { BijotelChainSpanProcessor, recordReplayContext } from 'bijotel-auditor/writer'

/** Stands in for an LLM SDK: the same request always gets the same answer, after a short wait. */
class StubLlmClient {
  async chat({ model, messages, seed }) {
    // A real call takes a while. (OpenTelemetry JS dates each span from its own Date.now() offset,
    // so spans ended within the same millisecond can be dated out of order by a fraction of one,
    // which the integrity monitor rightly reports as a backward timestamp.)
    await sleep(5)
    const question = messages[messages.length - 1].content
    const text = `(${model}, seed ${seed ?? 'none'}) You asked: ${question}`
    return { id: `resp-${text.length}`, model, text, usage: { input: question.length, output: text.length } }
  }
}

/** One LLM call, traced as a GenAI client span and sealed when the span ends. */
async function tracedChat(tracer, client, request) {
  const span = tracer.startSpan(`chat ${request.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'stub',
      'gen_ai.request.model': request.model,
      'gen_ai.request.temperature': request.temperature,
      'gen_ai.input.messages': JSON.stringify(request.messages),
    },
  })
  try {
    const response = await client.chat(request)
    span.setAttributes({
      'gen_ai.response.id': response.id,
      'gen_ai.response.model': response.model,
      'gen_ai.usage.input_tokens': response.usage.input,
      'gen_ai.usage.output_tokens': response.usage.output,
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: response.text }]),
      // Sealed with the call: hashes of the prompt and output, seed, sampling settings.
      ...recordReplayContext({
        prompt: request.messages,
        output: response.text,
        model: request.model,
        seed: request.seed,
        temperature: request.temperature,
      }),
    })
    span.setStatus({ code: SpanStatusCode.OK })
    return response
  } catch (e) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(e) })
    throw e
  } finally {
    span.end() // the processor seals the span here
  }
}

const [dbPath, countArg = '3'] = process.argv.slice(2)
const secretHex = process.env.BIJOTEL_HMAC_SECRET
if (!dbPath || !secretHex) {
  process.stderr.write('usage: BIJOTEL_HMAC_SECRET=<hex> node examples/seal-llm-calls.mjs chain.db [calls]\n')
  process.exit(2)
}

const processor = new BijotelChainSpanProcessor({
  dbPath,
  secret: Buffer.from(secretHex, 'hex'),
  onSealed: (sealed) => process.stdout.write(`sealed seq=${sealed.seq} hmac=${sealed.hmac_hash}\n`),
})
const provider = new BasicTracerProvider({ spanProcessors: [processor] })
const tracer = provider.getTracer('example-service')
const client = new StubLlmClient()

for (let i = 0; i < Number(countArg); i++) {
  const response = await tracedChat(tracer, client, {
    model: 'stub-model-1',
    messages: [{ role: 'user', content: `question ${i + 1}` }],
    seed: i % 2 === 0 ? 42 : undefined, // calls without a seed are marked non-deterministic
    temperature: 0.2,
  })
  process.stdout.write(`call ${i + 1}: ${response.text}\n`)
}
await provider.shutdown() // closes the chain
