// Help text of the key options, shared by the commands' --help (kept free of imports so that help
// loads nothing; the options themselves are in ./secret-sources).

/** The --secret-file and --secret-stdin option lines, descriptions starting at column `col`. */
export function keySourceOptions(col = 23): string {
  const pad = ' '.repeat(col)
  const opt = (name: string, lines: string[]): string =>
    [`  ${name}`.padEnd(col) + lines[0], ...lines.slice(1).map((l) => pad + l)].join('\n')
  return [
    opt('--secret-file PATH', [
      'read candidate keys from a file: one key per line, hex unless it starts with',
      'text: (raw UTF-8 bytes) or hex:; blank lines and # comment lines skipped;',
      'repeatable',
    ]),
    opt('--secret-stdin', ['read candidate keys from stdin, in the --secret-file format']),
  ].join('\n')
}

export const KEY_SOURCE_OPTIONS = keySourceOptions()

/** Why the file and stdin exist, and the order keys are tried in. */
export const KEYS_OFF_COMMAND_LINE = `keys: tried in the order --secret-hex, --secret-text, --secret-file, --secret-stdin. A key given
with --secret-hex or --secret-text is readable by every local user in the process list (ps,
/proc/<pid>/cmdline) while the command runs, and stays in the shell's history; --secret-file (a
file only you can read) and --secret-stdin (e.g. \`pass show chain-key | bijotel ... --secret-stdin\`)
keep it off both.`
