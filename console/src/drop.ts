// What a person dropped on the page: files, and whole folders with what is inside them, each file
// with its path from where it was dropped (`photos/2026/a.jpg`), so that the structure is kept.

export interface Picked { file: File, path: string }

const entryFile = (entry: FileSystemFileEntry) => new Promise<File>((resolve, reject) => entry.file(resolve, reject))

/** A folder's entries: the reader answers them a batch at a time, then an empty batch. */
async function entriesOf (folder: FileSystemDirectoryEntry) {
  const reader = folder.createReader()
  const all: FileSystemEntry[] = []
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject))
    if (batch.length === 0) return all
    all.push(...batch)
  }
}

async function filesOf (entry: FileSystemEntry, path: string): Promise<Picked[]> {
  if (entry.isFile) return [{ file: await entryFile(entry as FileSystemFileEntry), path }]
  const inside = await entriesOf(entry as FileSystemDirectoryEntry)
  return (await Promise.all(inside.map((child) => filesOf(child, `${path}/${child.name}`)))).flat()
}

export async function droppedFiles (transfer: DataTransfer): Promise<Picked[]> {
  // Entries must be taken while the drop event lasts; reading them may go on after.
  const entries = [...transfer.items].filter((item) => item.kind === 'file').map((item) => item.webkitGetAsEntry())
  if (entries.some((entry) => entry === null)) return [...transfer.files].map((file) => ({ file, path: file.name }))
  return (await Promise.all(entries.map((entry) => filesOf(entry!, entry!.name)))).flat()
}

/** Files chosen in the browser's dialog: a folder's (webkitdirectory) carry their path within it. */
export const chosenFiles = (files: FileList | null): Picked[] =>
  [...files ?? []].map((file) => ({ file, path: file.webkitRelativePath || file.name }))
