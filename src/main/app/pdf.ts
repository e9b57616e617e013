// The HTML report printed to PDF (issue 25 item 5, "print to PDF where Electron runs"): the page is
// loaded from memory into a hidden window of its own in-memory session, with JavaScript off and
// every request but the page itself cancelled, then printed with Chromium's printToPDF.
import { BrowserWindow, session } from 'electron'

const PARTITION = 'bijotel-report-pdf'

export async function printHtmlToPdf(html: string): Promise<Buffer> {
  const ses = session.fromPartition(PARTITION, { cache: false })
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  ses.webRequest.onBeforeRequest((details, callback) =>
    callback({ cancel: !details.url.startsWith('data:') }),
  )
  const win = new BrowserWindow({
    show: false,
    width: 1000,
    height: 1400,
    webPreferences: {
      session: ses,
      javascript: false,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
    },
  })
  try {
    await win.loadURL(`data:text/html;charset=utf-8;base64,${Buffer.from(html, 'utf8').toString('base64')}`)
    return await win.webContents.printToPDF({
      printBackground: true,
      pageSize: 'A4',
      preferCSSPageSize: true,
    })
  } finally {
    win.destroy()
  }
}
