// Electron main process entry (out/main/index.js): start the shell (main.ts).
import { processShellOptions, startShell } from './main'

void startShell(processShellOptions(__dirname))
