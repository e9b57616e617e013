// The command table. A new command is one file in this folder and one line here.
import type { Command } from '../command'
import { demoCommand } from './demo'
import { integrityCommand } from './integrity'
import { replayCommand } from './replay'
import { reportCommand } from './report'
import { serveCommand } from './serve'
import { verifyCommand } from './verify'

export const COMMANDS: Command[] = [
  verifyCommand,
  integrityCommand,
  reportCommand,
  serveCommand,
  replayCommand,
  demoCommand,
]
