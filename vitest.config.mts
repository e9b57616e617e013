import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    // The shell (src/main/app, src/preload) runs against a stand-in of the electron module: no
    // Electron binary is needed to test its wiring (test/main/app/electron-stand-in.ts).
    alias: [
      // The renderer's JSX runtime (tsconfig.json jsxImportSource): every element's text shown as
      // data (src/renderer/src/jsx/shown.ts), in the tests as in the app.
      {
        find: /^bijotel-jsx\/(jsx-runtime|jsx-dev-runtime)$/,
        replacement: fileURLToPath(new URL('./src/renderer/src/jsx/$1.ts', import.meta.url)),
      },
      {
        find: /^electron$/,
        replacement: fileURLToPath(new URL('./test/main/app/electron-stand-in.ts', import.meta.url)),
      },
    ],
  },
  test: {
    // Playwright specs live in e2e/ and must never be picked up here.
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Fails the run if any test created, removed or changed a file in ../shared/fixtures.
    globalSetup: ['test/repo/fixtures-guard.global.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
