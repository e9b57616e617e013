// The command table. A new command is a `<name>-info.ts` (name, help, exit codes) and a `<name>.ts`
// exporting `run`, plus one line here. Only the info is loaded up front: each `run` is imported when
// its command runs, so `bijotel --version` or `bijotel integrity` does not load the server or writer.
import { lazy, type Command } from '../command'
import { demoInfo } from './demo-info'
import { exportInfo } from './export-info'
import { inspectInfo } from './inspect-info'
import { integrityInfo } from './integrity-info'
import { listInfo } from './list-info'
import { keygenInfo } from './keygen-info'
import { recoverInfo } from './recover-info'
import { regressionInfo } from './regression-info'
import { replayInfo } from './replay-info'
import { reportInfo } from './report-info'
import { serveInfo } from './serve-info'
import { statsInfo } from './stats-info'
import { verifyContinuityInfo } from './verify-continuity-info'
import { verifyExportInfo } from './verify-export-info'
import { verifyInfo } from './verify-info'

export const COMMANDS: Command[] = [
  { ...verifyInfo, run: lazy(() => import('./verify')) },
  { ...verifyContinuityInfo, run: lazy(() => import('./verify-continuity')) },
  { ...verifyExportInfo, run: lazy(() => import('./verify-export')) },
  { ...integrityInfo, run: lazy(() => import('./integrity')) },
  { ...reportInfo, run: lazy(() => import('./report')) },
  { ...recoverInfo, run: lazy(() => import('./recover')) },
  { ...serveInfo, run: lazy(() => import('./serve')) },
  { ...replayInfo, run: lazy(() => import('./replay')) },
  { ...demoInfo, run: lazy(() => import('./demo')) },
  { ...exportInfo, run: lazy(() => import('./export')) },
  { ...listInfo, run: lazy(() => import('./list')) },
  { ...inspectInfo, run: lazy(() => import('./inspect')) },
  { ...statsInfo, run: lazy(() => import('./stats')) },
  { ...regressionInfo, run: lazy(() => import('./regression')) },
  { ...keygenInfo, run: lazy(() => import('./keygen')) },
]
