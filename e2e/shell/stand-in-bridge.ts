// Bundles stand-in-entry.ts (with the real preload bridge it imports) into one script for
// page.addInitScript, with Vite (the project's own bundler), once per test run.
import { resolve } from 'node:path'

let bundled: Promise<string> | null = null

export function standInBridgeScript(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import('vite')
    const out = await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        write: false,
        minify: false,
        lib: { entry: resolve(__dirname, 'stand-in-entry.ts'), formats: ['iife'], name: 'bijotelStandIn' },
      },
    })
    const result = Array.isArray(out) ? out[0] : out
    const chunk = (result as { output: { type: string; code?: string }[] }).output.find(
      (o) => o.type === 'chunk',
    )
    if (!chunk?.code) throw new Error('the stand-in bridge did not bundle')
    return chunk.code
  })()
  return bundled
}
