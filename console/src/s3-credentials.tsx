import { useEffect, useState } from 'preact/hooks'
import type { Api, S3CredentialSummary } from './api.js'
import { CopyButton } from './dialogs.js'
import { useAction } from './use-action.js'

/** Whether the page's service makes S3 credentials (it says so in the page). */
export const offersS3 = () => document.querySelector<HTMLMetaElement>('meta[name="stowage-s3"]')?.content === 'on'

/** S3 credentials, beside the API keys: a new one's secret is shown once; others are listed and revoked. */
export function S3Credentials ({ api, onUnauthorized }: { api: Api, onUnauthorized: () => void }) {
  const [credentials, setCredentials] = useState<S3CredentialSummary[]>()
  const [name, setName] = useState('')
  const [created, setCreated] = useState<{ accessKeyId: string, secretAccessKey: string }>()
  const { error, attempt } = useAction(onUnauthorized)
  const load = () => attempt(async () => setCredentials((await api.s3Credentials()).credentials))
  useEffect(() => { void load() }, [])

  const create = (event: Event) => {
    event.preventDefault()
    void attempt(async () => {
      const made = await api.createS3Credential(name.trim())
      setCreated({ accessKeyId: made.accessKeyId, secretAccessKey: made.secretAccessKey })
      setName('')
      await load()
    })
  }

  return (
    <section aria-labelledby="s3-title">
      <h2 id="s3-title">S3 credentials</h2>
      <p>For S3 tools (the AWS CLI, rclone, boto3, restic): your top-level folders are their buckets.</p>
      {error && <p role="alert" class="error">{error}</p>}
      <form class="inline" onSubmit={create}>
        <label for="s3-name">Name</label>
        <input id="s3-name" value={name} maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
        <button type="submit">Create S3 credential</button>
      </form>
      {created && (
        <div role="status" class="secret">
          <p>Your new S3 credential; the secret is shown this once: keep it somewhere safe.</p>
          <p>Access key id <output aria-label="Access key id">{created.accessKeyId}</output> <CopyButton text={created.accessKeyId} label="Copy the access key id" attempt={attempt} /></p>
          <p>Secret access key <output aria-label="Secret access key">{created.secretAccessKey}</output> <CopyButton text={created.secretAccessKey} label="Copy the secret" attempt={attempt} /></p>
        </div>
      )}
      {credentials?.length === 0 && !created && (
        <p class="empty">No S3 credentials yet. Name one above (the machine or tool it is for) and create it: the AWS CLI, rclone,
          boto3 or restic then reach your files with its access key id and secret, and you can revoke it here on its own.</p>
      )}
      {credentials && credentials.length > 0 && (
        <table aria-labelledby="s3-title">
          <thead><tr><th scope="col">Name</th><th scope="col">Access key id</th><th scope="col">Last used</th><th scope="col"><span class="hidden">Actions</span></th></tr></thead>
          <tbody>
            {credentials.map((credential) => (
              <tr key={credential.accessKeyId} aria-label={credential.name}>
                <th scope="row">{credential.name}</th>
                <td data-label="Access key id"><code>{credential.accessKeyId}</code></td>
                <td data-label="Last used">{credential.lastUsedAt ? new Date(credential.lastUsedAt).toLocaleString() : 'never'}</td>
                <td class="actions">
                  <button type="button" aria-label={`Revoke ${credential.name} (${credential.accessKeyId})`} onClick={() => attempt(async () => { await api.revokeS3Credential(credential.accessKeyId); await load() })}>Revoke</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
