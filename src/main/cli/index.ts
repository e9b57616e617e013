// Entry of the `bijotel` CLI (plain Node, no Electron).
import { printable } from '../../shared/printable'
import { readFileSync } from 'node:fs'
import { argvNotText, rawArgv } from './argv-bytes'
import { processIO } from './io'
import { runCli } from './main'

/**
 * Peak resident memory of this process in MB. On Linux from VmHWM: getrusage's maxrss survives
 * exec, so a CLI spawned by a large process (the bench) would report its parent's peak.
 */
function peakRssMb(): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (m) return Math.round(Number(m[1]) / 1024)
  } catch {
    // not Linux
  }
  return Math.round(process.resourceUsage().maxRSS / 1024)
}

const args = process.argv.slice(2)
const notText = argvNotText(args, rawArgv())
if (notText !== null) {
  // An argument error (exit 2, as argparse's): the value hashed would not be the one given.
  process.stderr.write(`bijotel: error: ${notText}\n`)
  process.exitCode = 2
} else
  runCli(args, processIO()).then(
    (code) => {
      process.exitCode = code
      if (process.env['BIJOTEL_TIMING']) {
        // CPU of every thread of the process (workers included): steadier than wall time on a busy machine.
        const cpu = process.cpuUsage()
        process.stderr.write(
          `timing: maxrss ${peakRssMb()} MB, cpu ${Math.round((cpu.user + cpu.system) / 1000)} ms\n`,
        )
      }
    },
    (e: unknown) => {
      process.stderr.write(
        `ERROR: internal error: ${printable(e instanceof Error ? e.message : String(e))}\n`,
      )
      process.exitCode = 1
    },
  )
