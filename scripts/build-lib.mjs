// Completes the npm package's library after `electron-vite build` has bundled its CommonJS entries
// (out/main/library*.js, beside the CLI and the workers they share):
//  - an ES module entry per library entry (out/main/library*.mjs) that re-exports the CommonJS one,
//    so `import` and `require` get the same module instance (no dual-package hazard: one
//    ChainWriter class, one AuditError class);
//  - one bundled declaration file per entry (out/types/library*.d.ts for `require`, the same text as
//    .d.mts for `import`), with no relative imports left, so it resolves under every
//    `moduleResolution` a consumer may use.
// Run by `npm run build:lib` (and so by `prepack`).
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

function esmWrappers() {
  for (const { name } of ENTRIES) {
    const cjsPath = join(root, 'out', 'main', `${name}.js`)
    // The export names come from the built module itself, so the wrapper cannot drift from it.
    const names = Object.keys(require(cjsPath))
      .filter((n) => n !== 'default' && n !== '__esModule')
      .sort()
    if (names.length === 0) throw new Error(`${cjsPath} exports nothing`)
    const text =
      `// ES module entry of ${name}: the CommonJS build's exports (one module instance for both).\n` +
      `import cjs from './${name}.js'\n\n` +
      `export const {\n${names.map((n) => `  ${n},`).join('\n')}\n} = cjs\n`
    writeFileSync(join(root, 'out', 'main', `${name}.mjs`), text)
  }
}

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

esmWrappers()
await declarations()
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
process.stdout.write(
  `build-lib: ${pkg.name} ${pkg.version}: ${ENTRIES.length} entries (CommonJS, ES module, types)\n`,
)
