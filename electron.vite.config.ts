import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import { esmEntries } from './scripts/esm-entries'

// One build produces the Electron main process, the standalone `bijotel` CLI (plain Node, no Electron),
// the library entries of the npm package (out/main/library*.js, see package.json `exports`), the
// workers they share, the sandboxed preload and the React renderer. The benchmark is not a product
// entry: `npm run bench` builds it with test/main/bench/vite.config.mts.
export default defineConfig({
  main: {
    plugins: [esmEntries('library')],
    resolve: {
      // better-sqlite3 is optional at run time (src/main/base/sqlite-driver.ts): every import of it in the
      // bundle goes through the loader, which loads it on first use or says in one line what to install.
      alias: [
        { find: /^better-sqlite3$/, replacement: resolve(__dirname, 'src/main/base/sqlite-driver.ts') },
      ],
    },
    build: {
      // Not marked external by name, so the alias above applies; the loader requires it at run time.
      externalizeDeps: { exclude: ['better-sqlite3'] },
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/app/index.ts'),
          cli: resolve(__dirname, 'src/main/cli/index.ts'),
          'verify-worker': resolve(__dirname, 'src/main/verify/worker.ts'),
          'columns-worker': resolve(__dirname, 'src/main/chain/columns/worker.ts'),
          // The npm package's library: CommonJS, with an ES module entry beside each (esmEntries);
          // its types come from scripts/build-lib.mjs.
          library: resolve(__dirname, 'src/main/library/index.ts'),
          'library-writer': resolve(__dirname, 'src/main/library/writer.ts'),
          'library-verify': resolve(__dirname, 'src/main/library/verify.ts'),
          'library-integrity': resolve(__dirname, 'src/main/library/integrity.ts'),
          'library-replay': resolve(__dirname, 'src/main/library/replay.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      minify: true,
      // recharts and React make one ~800 kB bundle; it is loaded from disk, not a network.
      chunkSizeWarningLimit: 1000,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    // Every element's text shown as data (src/renderer/src/jsx/shown.ts): JSX compiles to that runtime.
    resolve: {
      alias: [
        {
          find: 'bijotel-jsx/jsx-runtime',
          replacement: resolve(__dirname, 'src/renderer/src/jsx/jsx-runtime.ts'),
        },
        {
          find: 'bijotel-jsx/jsx-dev-runtime',
          replacement: resolve(__dirname, 'src/renderer/src/jsx/jsx-dev-runtime.ts'),
        },
      ],
    },
    plugins: [react({ jsxImportSource: 'bijotel-jsx' })],
  },
})
