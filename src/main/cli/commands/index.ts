// The command table. A new command is one file in this folder and one line here.
import type { Command } from '../command'
import { verifyCommand } from './verify'

export const COMMANDS: Command[] = [verifyCommand]
