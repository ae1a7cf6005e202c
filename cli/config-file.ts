import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { UsageError } from './io.js'

/** Signed in through the identity provider: the tokens, and when the access token was issued and expires (ISO 8601). */
export interface SignedInSettings { url: string, mode: 'oidc', accessToken: string, refreshToken: string, issuedAt?: string, expiresAt: string }

export type ClientSettings =
  | { url: string, mode: 'api-key', apiKey: string }
  | { url: string, mode: 'aws-sso', serverId: string, stsRegion: string, stsEndpoint: string }
  | SignedInSettings

export function settingsPath (env: Record<string, string | undefined>): string {
  if (env.STOWAGE_CONFIG) return env.STOWAGE_CONFIG
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
  return join(base, 'stowage', 'config.json')
}

export async function readSettings (env: Record<string, string | undefined>): Promise<ClientSettings> {
  const path = settingsPath(env)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new UsageError(`not logged in (no ${path}); run "stowage login"`)
  }
  try {
    return JSON.parse(text) as ClientSettings
  } catch {
    throw new UsageError(`${path} is not valid JSON; run "stowage login" again`)
  }
}

/** The settings' path, its folder made (0700) if it was not there: a first run on a new machine has none. */
export async function settingsFolderMade (env: Record<string, string | undefined>): Promise<string> {
  const path = settingsPath(env)
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  await chmod(dirname(path), 0o700)
  return path
}

/** The file holds an API key or a refresh token: mode 0600 in a 0700 folder, written whole or not
 *  at all (a rename), so a process that reads it meanwhile sees the old tokens or the new, never half. */
export async function writeSettings (env: Record<string, string | undefined>, settings: ClientSettings): Promise<string> {
  const path = await settingsFolderMade(env)
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  await writeFile(temporary, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 })
  await chmod(temporary, 0o600)
  await rename(temporary, path)
  return path
}
