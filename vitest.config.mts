import { defineConfig } from 'vitest/config'

export default defineConfig({
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
