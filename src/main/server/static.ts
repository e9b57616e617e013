// The built renderer (out/renderer) at `/`: files only from inside the static folder (no traversal,
// no symlink escape), `index.html` for client routes, the app token injected into index.html, and
// the renderer's own strict CSP sent as a header (a `<meta>` CSP cannot set frame-ancestors).
import { promises as fsp, realpathSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, resolve, sep } from 'node:path'
import { AuditError } from '../base/errors'
import { BASE_HEADERS, HttpError } from './http'

/** Same policy as the `<meta http-equiv="Content-Security-Policy">` of src/renderer/index.html. */
export const RENDERER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

export const APP_TOKEN_META = 'bijotel-app-token'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
}

/** index.html with `<meta name="bijotel-app-token">` added at the top of `<head>`. */
export function injectAppToken(html: string, token: string): string {
  const meta = `<meta name="${APP_TOKEN_META}" content="${token}" />`
  const m = /<head[^>]*>/i.exec(html)
  if (!m) return meta + html
  const at = m.index + m[0].length
  return `${html.slice(0, at)}\n    ${meta}${html.slice(at)}`
}

export class StaticSite {
  private readonly root: string

  constructor(
    dir: string,
    private readonly appToken: string,
  ) {
    try {
      this.root = realpathSync(resolve(dir))
    } catch {
      throw new AuditError('bad_argument', `static folder ${dir} does not exist`)
    }
  }

  /** The real path of a URL path inside the folder, or null (missing, outside, not a file). */
  private async locate(urlPath: string): Promise<string | null> {
    let decoded: string
    try {
      decoded = decodeURIComponent(urlPath)
    } catch {
      throw new HttpError(400, 'bad_request', 'malformed URL path')
    }
    if (decoded.includes('\0') || decoded.includes('\\'))
      throw new HttpError(400, 'bad_request', 'malformed URL path')
    if (decoded.split('/').some((s) => s === '..')) throw new HttpError(404, 'not_found', 'not found')
    const candidate = resolve(this.root, '.' + (decoded.startsWith('/') ? decoded : '/' + decoded))
    if (candidate !== this.root && !candidate.startsWith(this.root + sep)) return null
    try {
      const real = await fsp.realpath(candidate)
      if (!real.startsWith(this.root + sep)) return null
      const st = await fsp.stat(real)
      return st.isFile() ? real : null
    } catch {
      return null
    }
  }

  /** Serve a GET/HEAD for `urlPath`; false when nothing matched (the caller replies 404). */
  async serve(req: IncomingMessage, res: ServerResponse, urlPath: string): Promise<boolean> {
    let file = urlPath === '/' ? null : await this.locate(urlPath)
    const last = urlPath.split('/').pop() ?? ''
    const assets = urlPath.lastIndexOf('/assets/')
    if (file === null && assets > 0) {
      // The renderer links its assets relatively (`./assets/…`, as Electron needs): from a client
      // route like /entries/42 the browser asks for /entries/assets/…, which is /assets/….
      file = await this.locate(urlPath.slice(assets))
    }
    if (file === null) {
      // `/` and client routes (no file extension) get the app; a missing asset is a 404.
      if (urlPath !== '/' && last.includes('.')) return false
      file = await this.locate('/index.html')
      if (file === null) return false
    }
    const isIndex = file === resolve(this.root, 'index.html')
    let body: Buffer
    try {
      body = await fsp.readFile(file)
    } catch {
      return false
    }
    if (isIndex) body = Buffer.from(injectAppToken(body.toString('utf8'), this.appToken), 'utf8')
    for (const [k, v] of Object.entries(BASE_HEADERS)) res.setHeader(k, v)
    res.setHeader('Content-Security-Policy', RENDERER_CSP)
    res.setHeader('Cache-Control', isIndex ? 'no-store' : 'no-cache')
    res.setHeader('Content-Type', TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
    res.setHeader('Content-Length', String(body.length))
    res.statusCode = 200
    res.end(req.method === 'HEAD' ? undefined : body)
    return true
  }
}
