// The npm package library's type declarations, after `electron-vite build` has bundled its entries
// (out/main/library*.js, CommonJS, and library*.mjs, their ES module entries; see
// scripts/esm-entries.ts): one bundled declaration file per entry (out/types/library*.d.ts for
// `require`, the same text as .d.mts for `import`) with no relative import left, so it resolves
// under every `moduleResolution` a consumer may use. Run by `npm run build:lib` (so by `prepack`).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)

/** Package subpath → entry name (out/main/<name>.js, src/main/library/<source>.ts). */
export const ENTRIES = [
  { name: 'library', source: 'index' },
  { name: 'library-writer', source: 'writer' },
  { name: 'library-verify', source: 'verify' },
  { name: 'library-integrity', source: 'integrity' },
  { name: 'library-replay', source: 'replay' },
]

async function declarations() {
  const { generateDtsBundle } = require('dts-bundle-generator')
  const outDir = join(root, 'out', 'types')
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  const texts = generateDtsBundle(
    ENTRIES.map(({ source }) => ({
      filePath: join(root, 'src', 'main', 'library', `${source}.ts`),
      output: { noBanner: true, exportReferencedTypes: false },
    })),
    { preferredConfigPath: join(root, 'tsconfig.lib.json') },
  )
  ENTRIES.forEach(({ name }, i) => {
    const text = texts[i]
    if (/from '\.\.?\//.test(text)) throw new Error(`${name}.d.ts still has a relative import`)
    writeFileSync(join(outDir, `${name}.d.ts`), text)
    writeFileSync(join(outDir, `${name}.d.mts`), text)
  })
}

await declarations()
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
process.stdout.write(`build-lib: ${pkg.name} ${pkg.version}: ${ENTRIES.length} entries' type declarations\n`)
