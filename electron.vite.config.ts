import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

// One build produces the Electron main process, the standalone `bijotel` CLI (plain Node, no Electron),
// the verify worker they share, the benchmark, the sandboxed preload and the React renderer.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/app/index.ts'),
          cli: resolve(__dirname, 'src/main/cli/index.ts'),
          'verify-worker': resolve(__dirname, 'src/main/verify/worker.ts'),
          'columns-worker': resolve(__dirname, 'src/main/chain/columns/worker.ts'),
          bench: resolve(__dirname, 'test/main/bench/bench.ts'),
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
    plugins: [react()],
  },
})
