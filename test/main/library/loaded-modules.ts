// Test kit: which source modules a library entry loads. A child Node process imports the entry (as
// `import` or `require`) and lists the files that entered its module cache; each bundle file names
// the sources it holds in `// src/…` comments (the bundler's module markers), which say what was
// loaded.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

export interface Loaded {
  files: string[]
  modules: string[]
}

const LIST_CJS = `
const before = new Set(Object.keys(require.cache))
require(process.argv[1])
process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((f) => !before.has(f))))
`

const LIST_ESM = `
import { createRequire } from 'node:module'
const cache = createRequire(import.meta.url).cache
const before = new Set(Object.keys(cache))
await import(process.argv[1])
process.stdout.write(JSON.stringify(Object.keys(cache).filter((f) => !before.has(f))))
`

/** Load `specifier` (a package path or file) in a fresh Node process run in `cwd`. */
export function loadedBy(specifier: string, cwd: string, as: 'require' | 'import'): Loaded {
  const args =
    as === 'require' ? ['-e', LIST_CJS, specifier] : ['--input-type=module', '-e', LIST_ESM, specifier]
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 60_000 })
  if (r.status !== 0) throw new Error(`loading ${specifier} failed: ${r.stderr}`)
  const files = JSON.parse(r.stdout) as string[]
  const modules = new Set<string>()
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm))
      modules.add(m[1]!)
  }
  return { files, modules: [...modules].sort() }
}

/** What a writer-only service must not load: the reading layer, its workers, the app and the UI. */
export function heavyModules(l: Loaded): string[] {
  const heavy = [
    /^src\/main\/(integrity|cli|server|handlers|session|audit|export|app|verify|recovery|custody|search|browse|drift|replay)\//,
    // What a writer seals with is the chain's format: the seal (SHA-256, HMAC, GENESIS), the table's
    // schema and JCS (RFC 8785). The rest of chain/ reads (the reader, its sources, the addon).
    /^src\/main\/chain\/(?!(seal|schema|jcs)\.ts$)/,
    /^src\/(renderer|preload)\//,
    /^node_modules\/(react|react-dom|recharts)\//,
  ]
  return [
    ...l.modules.filter((m) => heavy.some((h) => h.test(m))),
    ...l.files.filter((f) => /(worker|index|cli)\.js$/.test(f)),
  ]
}
