// Entry of the `bijotel` CLI (plain Node, no Electron).
import { processIO } from './io'
import { runCli } from './main'

runCli(process.argv.slice(2), processIO()).then(
  (code) => {
    process.exitCode = code
    if (process.env['BIJOTEL_TIMING']) {
      process.stderr.write(`timing: maxrss ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`)
    }
  },
  (e: unknown) => {
    process.stderr.write(`ERROR: internal error: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exitCode = 1
  },
)
