// A CLI command and the one place where errors become a line on stderr and an exit code.
import { printable } from '../../shared/printable'
import { AuditError, CHAIN_FILE_ERRORS, oneLine } from '../base/errors'
import { UsageError } from './args'
import type { CliIO } from './io'

/** What the table knows of a command without loading its code: enough for help and exit codes. */
export interface CommandInfo {
  name: string
  summary: string
  /** Full `--help` text. */
  help: string
  /** Exit code for "DB missing or not a readable chain" (the reference differs per command). */
  chainFileExit: number
}

export type Run = (argv: string[], io: CliIO) => Promise<number>

export interface Command extends CommandInfo {
  run: Run
}

/**
 * A `run` that imports the command's module when called, so `bijotel <cmd>` loads only that
 * command's code. A failed import rejects inside `run`, where runCommand reports it in one line.
 */
export function lazy(load: () => Promise<{ run: Run }>): Run {
  return async (argv, io) => (await load()).run(argv, io)
}

export const EXIT_USAGE = 2

/**
 * An error whose first line is the reference's own sentence (scripts match it) and whose second
 * line is our hint, so the hint never changes the line a script compares.
 */
export class HintedError extends AuditError {
  constructor(
    code: AuditError['code'],
    message: string,
    readonly hint: string,
  ) {
    super(code, message)
  }
}

export async function runCommand(cmd: Command, argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(cmd.help.endsWith('\n') ? cmd.help : cmd.help + '\n')
    return 0
  }
  try {
    return await cmd.run(argv, io)
  } catch (e) {
    io.progress(null)
    if (e instanceof UsageError) {
      io.err(`bijotel ${cmd.name}: error: ${printable(e.message)}\n(see: bijotel ${cmd.name} --help)\n`)
      return EXIT_USAGE
    }
    if (e instanceof AuditError) {
      // One line whatever the message quotes (a path, a name): a newline in it cannot forge a second.
      io.err(`ERROR: ${printable(e.message)}\n`)
      if (e instanceof HintedError) io.err(`${printable(e.hint)}\n`)
      if (e.code === 'bad_secret' || e.code === 'no_secret' || e.code === 'bad_argument') return EXIT_USAGE
      if (CHAIN_FILE_ERRORS.has(e.code) || e.code === 'too_large') return cmd.chainFileExit
      return 1
    }
    io.err(`ERROR: internal error: ${printable(oneLine(e))}\n`)
    if (io.env['BIJOTEL_DEBUG']) io.err(`${(e as Error).stack ?? ''}\n`)
    return 1
  }
}
