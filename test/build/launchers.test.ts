// The packaged app's CLI launchers and Linux install scripts (build/). The installers themselves
// cannot be built here (electron-builder downloads Electron and its tools), so this checks what can
// be checked without them: the scripts parse, the POSIX launcher finds the app through a symlink as
// /usr/bin/bijotel is, and the Windows launcher keeps its variables to itself.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const BUILD = resolve(__dirname, '../../build')
const tmp = mkdtempSync(join(tmpdir(), 'bijotel-launchers-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('deb/rpm install scripts', () => {
  for (const name of ['after-install.tpl', 'after-remove.tpl']) {
    it(`${name} is valid bash`, () => {
      execFileSync('bash', ['-n', join(BUILD, 'linux', name)])
    })
  }

  it('link the bundled CLI as /usr/bin/bijotel and unlink only their own link', () => {
    const install = readFileSync(join(BUILD, 'linux', 'after-install.tpl'), 'utf8')
    const remove = readFileSync(join(BUILD, 'linux', 'after-remove.tpl'), 'utf8')
    // The install folder electron-builder substitutes (written in two parts: not a local path).
    const cli = "BIJOTEL_CLI='" + ['', 'opt', '${sanitizedProductName}/resources/bin/bijotel'].join('/') + "'"
    expect(install).toContain(cli)
    expect(install).toContain('ln -s "$BIJOTEL_CLI" /usr/bin/bijotel')
    // electron-builder's own duties stay: the app's link and the sandbox helper's mode.
    expect(install).toContain("'/usr/bin/${executable}'")
    expect(install).toContain('chrome-sandbox')
    expect(remove).toContain(cli)
    expect(remove).toMatch(
      /readlink \/usr\/bin\/bijotel\)" = "\$BIJOTEL_CLI" \]; then\n\s+rm -f \/usr\/bin\/bijotel/,
    )
  })

  it('are the scripts electron-builder.yml names for deb and rpm', () => {
    const yml = readFileSync(resolve(BUILD, '../electron-builder.yml'), 'utf8')
    for (const target of ['deb', 'rpm']) {
      expect(yml).toMatch(
        new RegExp(
          `\\n${target}:\\n  afterInstall: build/linux/after-install.tpl\\n  afterRemove: build/linux/after-remove.tpl\\n`,
        ),
      )
    }
  })
})

describe('POSIX launcher (resources/bin/bijotel)', () => {
  it('runs the app as Node on its CLI when called through a symlink', () => {
    // The packaged layout on Linux: <app>/bijotel-auditor and <app>/resources/{bin,app.asar}.
    const app = join(tmp, 'app')
    mkdirSync(join(app, 'resources', 'bin'), { recursive: true })
    copyFileSync(join(BUILD, 'bijotel'), join(app, 'resources', 'bin', 'bijotel'))
    chmodSync(join(app, 'resources', 'bin', 'bijotel'), 0o755)
    // A stand-in for the Electron executable: prints what it was given.
    writeFileSync(
      join(app, 'bijotel-auditor'),
      '#!/bin/sh\necho "RUN_AS_NODE=$ELECTRON_RUN_AS_NODE"\nfor a in "$@"; do echo "ARG=$a"; done\n',
    )
    chmodSync(join(app, 'bijotel-auditor'), 0o755)
    const bin = join(tmp, 'usr-bin')
    mkdirSync(bin)
    symlinkSync(join(app, 'resources', 'bin', 'bijotel'), join(bin, 'bijotel'))
    const out = execFileSync(join(bin, 'bijotel'), ['verify', '--db', 'a b.db'], { encoding: 'utf8' })
    expect(out.split('\n')).toEqual([
      'RUN_AS_NODE=1',
      `ARG=${join(app, 'resources', 'app.asar', 'out', 'main', 'cli.js')}`,
      'ARG=verify',
      'ARG=--db',
      'ARG=a b.db',
      '',
    ])
  })
})

describe('Windows launcher (resources\\bin\\bijotel.cmd)', () => {
  const text = readFileSync(join(BUILD, 'bijotel.cmd'), 'latin1')
  const lines = text.split('\r\n').filter((l) => l !== '' && !/^(@echo off|rem\b)/i.test(l))

  it('sets its variables only after setlocal, so they do not leak into the calling shell', () => {
    expect(lines[0]).toBe('setlocal')
    expect(lines.findIndex((l) => /ELECTRON_RUN_AS_NODE/.test(l))).toBeGreaterThan(0)
    expect(lines.findIndex((l) => /^set\b/i.test(l))).toBeGreaterThan(0)
  })

  it('uses CRLF line endings and passes the exit code on', () => {
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/)
    expect(lines[lines.length - 1]).toBe('exit /b %ERRORLEVEL%')
  })
})
