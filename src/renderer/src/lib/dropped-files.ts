// The files of a drop: the dropped files, and the files directly inside a dropped folder (read
// through the File and Directory Entries API, webkitGetAsEntry; sub-folders are not entered).

function filesOfFolder(dir: FileSystemDirectoryEntry): Promise<File[]> {
  const reader = dir.createReader()
  const entries: FileSystemEntry[] = []
  // readEntries answers in chunks until it answers an empty list.
  const more = (): Promise<void> =>
    new Promise((resolve, reject) =>
      reader.readEntries((chunk) => {
        if (chunk.length === 0) return resolve()
        entries.push(...chunk)
        more().then(resolve, reject)
      }, reject),
    )
  return more().then(() =>
    Promise.all(
      entries
        .filter((e): e is FileSystemFileEntry => e.isFile)
        .map((e) => new Promise<File>((resolve, reject) => e.file(resolve, reject))),
    ),
  )
}

export async function droppedFiles(e: DragEvent): Promise<{ files: File[]; folder: boolean }> {
  const dt = e.dataTransfer
  if (!dt) return { files: [], folder: false }
  // Entries must be taken while the event is being handled; files are read afterwards.
  const entries = Array.from(dt.items ?? [])
    .map((i) => (i.kind === 'file' && typeof i.webkitGetAsEntry === 'function' ? i.webkitGetAsEntry() : null))
    .filter((x): x is FileSystemEntry => x !== null)
  const plain = Array.from(dt.files ?? [])
  const folders = entries.filter((x): x is FileSystemDirectoryEntry => x.isDirectory)
  if (folders.length === 0) return { files: plain, folder: false }
  const names = new Set(folders.map((f) => f.name))
  const files = plain.filter((f) => !names.has(f.name))
  for (const d of folders) files.push(...(await filesOfFolder(d).catch(() => [])))
  return { files, folder: true }
}
