// The benchmark's own build (`npm run bench`), apart from the product's (electron.vite.config.ts):
// one CommonJS script at out/main/bench/bench.js, beside the product's bundles so that the workers
// it measures are found where the CLI finds them (src/main/base/workers.ts looks one level up).
// better-sqlite3 goes through the same loader as in the product build, so the engine code it runs
// is the code the CLI runs.
import { builtinModules } from 'node:module'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const root = fileURLToPath(new URL('../../..', import.meta.url))

export default defineConfig({
  root,
  logLevel: 'warn',
  resolve: {
    alias: [{ find: /^better-sqlite3$/, replacement: resolve(root, 'src/main/base/sqlite-driver.ts') }],
  },
  build: {
    ssr: resolve(root, 'test/main/bench/bench.ts'),
    outDir: resolve(root, 'out/main/bench'),
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      external: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
      output: { format: 'cjs', entryFileNames: 'bench.js' },
    },
  },
  ssr: { noExternal: true },
})
