// The command table stays light: its copies of the demo constants match the writer's, and help
// for every command is served without loading that command's module.
import { describe, expect, it } from 'vitest'
import * as writerDemo from '../../../../src/main/writer/demo'
import { runCli } from '../../../../src/main/cli/main'
import * as demoInfo from '../../../../src/main/cli/commands/demo-info'
import { COMMANDS } from '../../../../src/main/cli/commands/index'
import { memoryIO } from '../../testing/cli-io'

describe('command table', () => {
  it("demo help shows the writer's own defaults", () => {
    expect(demoInfo.DEMO_SECRET_HEX).toBe(writerDemo.DEMO_SECRET_HEX)
    expect(demoInfo.DEMO_ROTATED_SECRET_HEX).toBe(writerDemo.DEMO_ROTATED_SECRET_HEX)
    expect(demoInfo.DEMO_DEFAULT_SEED).toBe(writerDemo.DEMO_DEFAULT_SEED)
  })

  it('answers --help for every command', async () => {
    for (const c of COMMANDS) {
      const io = memoryIO()
      expect(await runCli([c.name, '--help'], io)).toBe(0)
      expect(io.stdout).toMatch(new RegExp(`^usage: bijotel ${c.name} `))
    }
  })
})
