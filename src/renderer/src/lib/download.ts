// Saving a document from the page: a Blob and an <a download> (web mode).
import { jsonDocumentPrintable } from '../../../shared/printable'

/** A JSON document (a report) as the CLI writes it: unprintable code points as \u escapes. */
export function downloadJson(fileName: string, value: unknown): void {
  downloadText(fileName, jsonDocumentPrintable(value) + '\n', 'application/json')
}

export function downloadText(fileName: string, text: string, type: string): void {
  const blob = new Blob([text], { type })
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = fileName
  a.rel = 'noopener'
  a.style.display = 'none'
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text)
    return
  }
  throw new Error('the clipboard is not available here')
}
