// Chain of custody in the app (issue 25), for one opened chain: the report-signing key (held by the
// engine in its main process; the page sees only its fingerprint and public key), "Compare with an
// earlier report…" (a report or verdict becomes the prior of the next verify, which runs at once)
// and "Check a report…" (a report checked again against this chain, field by field). Files chosen
// here are read in the page (File.text()) and sent as text, so web mode needs no path on the server.
import type { ApiClient } from '../../../../shared/contract'
import type { PriorInfo, ReportCheckResult, SigningKeyInfo } from '../../../../shared/custody-types'
import { errorMessage } from '../format'
import { Store } from './store'

/** The engine reads report text up to this size (the handler's limit, and the HTTP body limit). */
export const MAX_REPORT_TEXT = 64 * 1024 * 1024
/** A PEM key is a few hundred bytes; anything this large is not one. */
export const MAX_KEY_TEXT = 64 * 1024

export interface CustodyState {
  signingKey: SigningKeyInfo | null
  keyBusy: boolean
  keyError: string | null
  prior: PriorInfo | null
  /** The name of the file the prior was read from. */
  priorFile: string | null
  priorBusy: boolean
  priorError: string | null
  check: ReportCheckResult | null
  /** The name of the file checked. */
  checkFile: string | null
  checkBusy: boolean
  checkError: string | null
}

export interface CustodyEnv {
  /** The desktop app chooses the signing key with its dialog; web mode never chooses it (serve --sign-key). */
  hasDialogs: boolean
  /** Runs the verify that compares with the prior (the workspace's verify job). */
  verify: () => Promise<void>
}

async function readText(file: File, limit: number, what: string): Promise<string> {
  if (file.size > limit) throw new Error(`${file.name} is ${file.size} bytes: too large for ${what}`)
  return file.text()
}

export class CustodyStore extends Store<CustodyState> {
  constructor(
    /** Bound to this workspace's chain (scopedApi). */
    private readonly api: ApiClient,
    private readonly env: CustodyEnv,
  ) {
    super({
      signingKey: null,
      keyBusy: false,
      keyError: null,
      prior: null,
      priorFile: null,
      priorBusy: false,
      priorError: null,
      check: null,
      checkFile: null,
      checkBusy: false,
      checkError: null,
    })
  }

  /** The key the engine already holds (it outlives a chain: it signs every export). */
  load(): void {
    this.api.signingKey().then(
      (signingKey) => this.update({ signingKey }),
      () => undefined,
    )
  }

  private async keyCall(call: () => Promise<SigningKeyInfo | null>): Promise<void> {
    this.update({ keyBusy: true, keyError: null })
    try {
      this.update({ signingKey: await call() })
    } catch (e) {
      this.update({ keyError: errorMessage(e) })
    } finally {
      this.update({ keyBusy: false })
    }
  }

  /** Desktop: the open dialog (cancelled: the key held before stays). */
  readonly pickKey = (): Promise<void> => this.keyCall(() => this.api.pickSigningKey())
  readonly forgetKey = (): Promise<void> => this.keyCall(() => this.api.setSigningKey({ path: null }))

  /** "Compare with an earlier report…": the file becomes the prior, and the chain is verified against it. */
  readonly comparePrior = async (file: File): Promise<void> => {
    this.update({ priorBusy: true, priorError: null })
    try {
      const text = await readText(file, MAX_REPORT_TEXT, 'a prior')
      const prior = await this.api.setPrior({ text })
      this.update({ prior, priorFile: file.name })
    } catch (e) {
      this.update({ priorError: errorMessage(e) })
      return
    } finally {
      this.update({ priorBusy: false })
    }
    await this.env.verify()
  }

  /**
   * The prior the engine holds, as another tab or window set or cleared it (AppEvents.priorChanged):
   * shown, so that this page never says "no prior" while its next verify applies one (its file's
   * name only where it was chosen).
   */
  readonly priorHeld = (prior: PriorInfo | null): void =>
    this.update((s) => (JSON.stringify(s.prior) === JSON.stringify(prior) ? {} : { prior, priorFile: null }))

  readonly clearPrior = async (): Promise<void> => {
    this.update({ priorError: null })
    try {
      await this.api.setPrior({ clear: true })
      this.update({ prior: null, priorFile: null })
    } catch (e) {
      this.update({ priorError: errorMessage(e) })
    }
  }

  /** "Check a report…": against the auditor's copy of the signer's public key when one is given. */
  readonly checkReport = async (file: File, publicKey: File | null): Promise<void> => {
    this.update({ checkBusy: true, checkError: null, check: null, checkFile: file.name })
    try {
      const text = await readText(file, MAX_REPORT_TEXT, 'a report')
      const pem = publicKey ? await readText(publicKey, MAX_KEY_TEXT, 'a public key') : undefined
      const check = await this.api.checkReport(pem === undefined ? { text } : { text, public_key_pem: pem })
      this.update({ check })
    } catch (e) {
      this.update({ checkError: errorMessage(e) })
    } finally {
      this.update({ checkBusy: false })
    }
  }

  readonly dismissCheck = (): void => this.update({ check: null, checkFile: null, checkError: null })

  get hasDialogs(): boolean {
    return this.env.hasDialogs
  }
}
