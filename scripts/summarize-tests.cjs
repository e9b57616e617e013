// Prints the one closing line CI reads: "tests: N passed, N failed, N skipped" over vitest and Playwright.
const { existsSync, readFileSync } = require('node:fs')
let passed = 0
let failed = 0
let skipped = 0
const [vitestJson, playwrightJson] = process.argv.slice(2)
if (vitestJson && existsSync(vitestJson)) {
  const v = JSON.parse(readFileSync(vitestJson, 'utf8'))
  passed += v.numPassedTests ?? 0
  // A suite that failed outside any test (import error, hook) has no failed test to count.
  failed += Math.max(v.numFailedTests ?? 0, v.numFailedTestSuites ?? 0)
  skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0)
} else {
  failed += 1
  console.error('summary: no vitest results')
}
if (playwrightJson && existsSync(playwrightJson)) {
  const p = JSON.parse(readFileSync(playwrightJson, 'utf8'))
  passed += p.stats?.expected ?? 0
  failed += p.stats?.unexpected ?? 0
  skipped += p.stats?.skipped ?? 0
} else {
  failed += 1
  console.error('summary: no playwright results')
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 ? 1 : 0)
