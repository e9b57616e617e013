// The key-file format (`--secret-file`, `--secret-stdin`): parseKeyList line by line.
import { describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { KEY_LIST_MAX_BYTES, parseKeyList, parseSecrets } from '../../../src/main/chain/keys'

const parse = (text: string | Buffer) => parseKeyList(Buffer.from(text), 'keys.txt')

function failure(text: string | Buffer): AuditError {
  try {
    parse(text)
  } catch (e) {
    if (e instanceof AuditError) return e
    throw e
  }
  throw new Error('no error')
}

describe('parseKeyList', () => {
  it('hex by default, hex: and text: prefixes, in file order', () => {
    expect(parse('aabb\nhex:ccdd\ntext:raw key # not a comment\n')).toEqual([
      { encoding: 'hex', value: 'aabb' },
      { encoding: 'hex', value: 'ccdd' },
      { encoding: 'text', value: 'raw key # not a comment' },
    ])
  })

  it('skips blank lines and whole-line # comments (indented too); strips a BOM and CRLF', () => {
    expect(parse('\uFEFF# keys\r\n\r\n   \r\n  # indented\r\n  00ff\r\n')).toEqual([
      { encoding: 'hex', value: '00ff' },
    ])
  })

  it('a text: key is every character after the prefix (spaces kept, CR of CRLF not)', () => {
    expect(parse('text: a b \r\n')).toEqual([{ encoding: 'text', value: ' a b ' }])
    expect(parseSecrets(parse('text:é'))[0]!.bytes).toEqual(Buffer.from('é', 'utf8'))
  })

  it("hex as Python's bytes.fromhex reads it: spaces between pairs", () => {
    expect(parseSecrets(parse('hex: aa bb  cc '))[0]!.bytes).toEqual(Buffer.from([0xaa, 0xbb, 0xcc]))
  })

  it('errors name the line, never the key', () => {
    const e = failure('# a\naabb\nsecretvalue\n')
    expect(e.code).toBe('bad_secret')
    expect(e.message).toBe(
      'keys.txt, line 3: not valid hex (11 characters); write text: before a raw UTF-8 key',
    )
    expect(e.message).not.toContain('secret')
    expect(failure('abc').message).toContain('line 1: not valid hex (3 characters)')
    expect(failure('hex:\n').message).toBe('keys.txt, line 1: empty hex: key')
    expect(failure('text:\n').message).toBe('keys.txt, line 1: empty text: key')
  })

  it('refuses an empty list, NUL bytes, invalid UTF-8 and oversized input', () => {
    expect(failure('# none\n').code).toBe('no_secret')
    expect(failure('').message).toBe('keys.txt: no key in it (only blank lines and # comments)')
    expect(failure(Buffer.from([0x61, 0x00])).message).toBe('keys.txt: holds a NUL byte, not a key file')
    expect(failure(Buffer.from([0xff, 0xfe, 0x61])).message).toBe('keys.txt: not UTF-8 text')
    expect(failure(Buffer.alloc(KEY_LIST_MAX_BYTES + 1, 0x61)).message).toMatch(/^keys\.txt: over \d+ bytes/)
  })
})
