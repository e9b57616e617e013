// The integrity monitor's provider keeps its JSON type (reference §5.2: "a numeric provider stays a
// number"): Python counts providers in a dict, where the number 1 and the string "1" are two keys,
// while 1, 1.0 and true are one (equal values hash equal). Providers are interned by a key that
// says which: a provider that is not a JSON string is its JSON-key spelling (`1.0`, `true`) behind
// a NUL; a string that itself begins with NUL gets a second one, so no string spells a number's key.
// What is shown (overview, timeline, filters, the report's JSON keys) is the spelling alone.

const TAG = '\u0000'

/** The key of a provider given as a JSON string. */
export function stringProviderKey(s: string): string {
  return s.startsWith(TAG) ? TAG + s : s
}

/**
 * The key of a provider that is a JSON number or `true`, from its JSON-key spelling (`unknown`, for
 * an int Python refuses to read, stays the string `unknown`).
 */
export function valueProviderKey(spelling: string): string {
  return spelling === 'unknown' ? spelling : TAG + spelling
}

/**
 * Python's equality class of a provider (dict keys that are equal are one key): a string is itself;
 * true is 1; an int and an integral float of the same value are one (compared exactly, as Python
 * compares int with float); every NaN from json.loads is its one NaN constant (the same object).
 */
export function providerClass(key: string): string {
  if (!isValueProvider(key)) return `s${key}`
  const spelling = key.slice(1)
  if (spelling === 'true') return 'n1'
  if (/^-?\d+$/.test(spelling)) return `n${BigInt(spelling)}`
  if (spelling === 'NaN') return 'nnan'
  if (spelling === 'Infinity' || spelling === '-Infinity') return `n${spelling}`
  const x = Number(spelling)
  return Number.isInteger(x) ? `n${BigInt(x)}` : `f${spelling}`
}

/** Python's str() of a provider key's value: `True`, `inf`, `nan` where its JSON key says `true`, `Infinity`, `NaN`. */
export function providerStr(key: string): string {
  if (!isValueProvider(key)) return providerLabel(key)
  const spelling = key.slice(1)
  const words: Record<string, string> = { true: 'True', Infinity: 'inf', '-Infinity': '-inf', NaN: 'nan' }
  return Object.prototype.hasOwnProperty.call(words, spelling) ? words[spelling]! : spelling
}

/** The spelling of a provider key: the string, or the number's JSON key (`1.0`, `true`, `Infinity`). */
export function providerLabel(key: string): string {
  return key.startsWith(TAG) ? key.slice(1) : key
}

/** Whether the key is of a provider that is not a JSON string. */
export function isValueProvider(key: string): boolean {
  return key.startsWith(TAG) && key.charCodeAt(1) !== 0
}
