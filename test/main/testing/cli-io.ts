// In-process CLI kits: an io that collects output in memory, and `serve` with its stop signal
// injected (the command itself stops on SIGINT/SIGTERM).
import type { CliIO } from '../../../src/main/cli/io'
import type { Command } from '../../../src/main/cli/command'
import { serve, type ServeDeps } from '../../../src/main/cli/commands/serve'
import { serveInfo } from '../../../src/main/cli/commands/serve-info'

/** Collects output in memory. */
export function memoryIO(
  env: Record<string, string | undefined> = {},
  stdin: Buffer | string = '',
): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    env,
    stderrIsTTY: false,
    out(t: string) {
      io.stdout += t
    },
    err(t: string) {
      io.stderr += t
    },
    progress() {},
    readStdin: (maxBytes: number) => Promise.resolve(Buffer.from(stdin).subarray(0, maxBytes)),
  }
  return io
}

/** `serve` ending when `deps.stop` resolves. */
export function createServeCommand(deps: ServeDeps = {}): Command {
  return { ...serveInfo, run: (argv, io) => serve(argv, io, deps) }
}
