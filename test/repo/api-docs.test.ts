// The library's API documentation, generated from its types (typedoc.json: the five entries of the
// npm package). TypeDoc's own validation fails the build on a link it cannot resolve, a referenced
// type that is not exported, or any warning; then every relative link and anchor of the generated
// HTML is followed to a file and an element that exist.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '..', '..')
const out = mkdtempSync(join(tmpdir(), 'bijotel-api-docs-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? htmlFiles(p) : p.endsWith('.html') ? [p] : []
  })
}

const idsCache = new Map<string, Set<string>>()
function idsOf(file: string): Set<string> {
  let ids = idsCache.get(file)
  if (!ids) {
    ids = new Set([...readFileSync(file, 'utf8').matchAll(/\b(?:id|name)="([^"]+)"/g)].map((m) => m[1]!))
    idsCache.set(file, ids)
  }
  return ids
}

/** Relative links and anchors of the site under `dir` that lead nowhere, as `page: link`. */
function brokenLinks(dir: string): string[] {
  const broken: string[] = []
  for (const page of htmlFiles(dir)) {
    const html = readFileSync(page, 'utf8')
    for (const m of html.matchAll(/\b(?:href|src)="([^"]*)"/g)) {
      const link = m[1]!.replace(/&amp;/g, '&')
      if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(link)) continue // absolute URL: not this site's
      const [pathPart = '', fragment] = link.split('#')
      const target = pathPart === '' ? page : resolve(dirname(page), pathPart.split('?')[0]!)
      let ok = true
      try {
        ok = statSync(target).isFile()
      } catch {
        ok = false
      }
      if (ok && fragment && /\.(html|svg)$/.test(target)) ok = idsOf(target).has(decodeURIComponent(fragment))
      if (!ok) broken.push(`${relative(dir, page)}: ${link}`)
    }
  }
  return broken
}

describe('API documentation (TypeDoc)', () => {
  it('builds from the types with no warning and no broken link', () => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc'), '--out', out],
      { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
    )
    expect(r.stdout + r.stderr).not.toMatch(/\[(warning|error)\]/)
    expect(r.status).toBe(0)
    const pages = htmlFiles(out).map((p) => relative(out, p))
    // Every entry has its page, and the Python-named API is documented.
    for (const entry of ['bijotel-auditor', 'bijotel-auditor_writer', 'bijotel-auditor_verify'])
      expect(pages.some((p) => p.startsWith(`${entry}`) || p.includes(`/${entry}`))).toBe(true)
    for (const name of [
      'verifyChain',
      'analyzeChainIntegrity',
      'ChainIntegrityMonitor',
      'BijotelChainSpanProcessor',
    ])
      expect(pages.some((p) => p.includes(name))).toBe(true)
    expect(brokenLinks(out)).toEqual([])
  }, 300_000)

  it('the link check finds a broken link (it can fail)', () => {
    const site = mkdtempSync(join(tmpdir(), 'bijotel-links-'))
    const page = join(site, 'index.html')
    writeFileSync(page, '<a href="missing.html">x</a><a href="#nowhere">y</a><a id="here" href="#here">z</a>')
    try {
      expect(brokenLinks(site)).toEqual(['index.html: missing.html', 'index.html: #nowhere'])
    } finally {
      rmSync(site, { recursive: true, force: true })
    }
  })
})
