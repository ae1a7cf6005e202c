import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'

/**
 * A new empty folder as deep as the repository (`made` is the temporary folder to remove after).
 * CI's ccache takes paths relative to where the compiler runs (CCACHE_BASEDIR=/), so the native
 * modules an install test builds at the repository's depth are the stage's own build, found in the
 * cache; one level deeper compiled SQLite again (one to two minutes of a busy core per install).
 */
export function folderAtRepoDepth (prefix: string): { made: string, folder: string } {
  const depth = (path: string) => path.split(sep).filter(Boolean).length
  const made = mkdtempSync(join(tmpdir(), prefix))
  let folder = made
  while (depth(folder) < depth(process.cwd())) folder = join(folder, 'd')
  mkdirSync(folder, { recursive: true })
  return { made, folder }
}
