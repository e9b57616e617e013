// A build plugin for electron.vite.config.ts: beside each CommonJS library entry of the main build
// (out/main/library*.js) it writes an ES module entry (library*.mjs) that imports it and re-exports
// its names. `import` and `require` then share one module instance — one ChainWriter class, one
// AuditError class — where a second, ESM build of the engine would give two (the dual-package
// hazard). The names come from the bundler's own list of the chunk's exports.
import type { Plugin } from 'vite'

export function esmEntries(prefix: string): Plugin {
  return {
    name: 'bijotel:esm-entries',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry || !chunk.name.startsWith(prefix)) continue
        const names = chunk.exports.filter((n) => n !== 'default').sort()
        if (names.length === 0) this.error(`${chunk.fileName} exports nothing`)
        const base = chunk.fileName.replace(/\.js$/, '')
        this.emitFile({
          type: 'asset',
          fileName: `${base}.mjs`,
          source:
            `// ES module entry: the exports of ./${base.split('/').pop()}.js (one module instance for import and require).\n` +
            `import cjs from './${base.split('/').pop()}.js'\n\n` +
            `export const {\n${names.map((n) => `  ${n},`).join('\n')}\n} = cjs\n`,
        })
      }
    },
  }
}
