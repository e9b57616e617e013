import { TOOL_VERSION } from '../base/version'
import { printableLines } from '../../shared/printable'
import { runCommand } from './command'
import { COMMANDS } from './commands'
import type { CliIO } from './io'

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    'usage: bijotel <command> [options]',
    '',
    'BIJOTEL Auditor — verify and analyse BIJOTEL tamper-evident chains of LLM calls.',
    'Chains are read in place, read-only (through a verified private copy for files the direct reader declines); the evidence is never modified.',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "run 'bijotel <command> --help' for a command's options and exit codes",
  ].join('\n')
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(topHelp() + '\n')
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === 'version') {
    io.out(`bijotel-auditor ${TOOL_VERSION}\n`)
    return 0
  }
  const cmd = COMMANDS.find((c) => c.name === name)
  if (!cmd) {
    io.err(
      `bijotel: error: unknown command '${name}' (choose from ${COMMANDS.map((c) => c.name).join(', ')})\n`,
    )
    return 2
  }
  // Every line on stderr is the tool's: an escape sequence, a carriage return or a bidi mark that a
  // message quotes (a path, a name from the evidence) is shown escaped, never acted on by the
  // terminal. (A newline in a quoted value is escaped where the message is made: runCommand.)
  return runCommand(cmd, rest, { ...io, err: (t) => io.err(printableLines(t)) })
}
