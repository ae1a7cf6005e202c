import { useRef, useState } from 'preact/hooks'
import { Upload, type DetailedError } from 'tus-js-client'
import type { Api } from './api.js'
import { refusal } from './requests.js'

/** A file to send, where, and what must stand there: `ifMatch` replaces that version only,
 *  `ifNoneMatch: '*'` creates only. */
export interface Outgoing { file: File, path: string, ifMatch?: string, ifNoneMatch?: '*' }

interface Transfer {
  id: number
  name: string
  sent: number
  total: number
  state: 'waiting' | 'sending' | 'paused' | 'done' | 'failed'
  error?: string
}

// Pieces small enough that a pause or a dropped connection loses little, large enough to be few.
const PIECE_BYTES = 8 * 1024 * 1024
// A few at a time: a dropped folder of thousands of files waits its turn rather than opening thousands of uploads.
const AT_ONCE = 3

/** Files sent through tus, each with its progress, pause, resume and cancel. */
export function useUploads (api: Api, onUploaded: () => void) {
  const [transfers, setTransfers] = useState<Transfer[]>([])
  // An upload ends renders later: it tells the caller as it is then (the folder shown now).
  const uploaded = useRef(onUploaded)
  uploaded.current = onUploaded
  const uploads = useRef(new Map<number, Upload>())
  const next = useRef(0)
  const sending = useRef(new Set<number>())
  const waiting = useRef<number[]>([])
  const update = (id: number, change: Partial<Transfer>) =>
    setTransfers((all) => all.map((transfer) => transfer.id === id ? { ...transfer, ...change } : transfer))

  function pump () {
    while (sending.current.size < AT_ONCE && waiting.current.length > 0) {
      const id = waiting.current.shift()!
      sending.current.add(id)
      update(id, { state: 'sending' })
      uploads.current.get(id)?.start()
    }
  }
  /** `id` sends no more (done, failed, paused or cancelled): the next waiting one goes. */
  function settle (id: number) {
    sending.current.delete(id)
    waiting.current = waiting.current.filter((other) => other !== id)
    pump()
  }

  function start (outgoing: Outgoing[]) {
    for (const { file, path, ...preconditions } of outgoing) {
      const id = next.current++
      const upload = new Upload(file, {
        ...api.uploads,
        chunkSize: PIECE_BYTES,
        retryDelays: [1000, 3000, 5000],
        // Resumed within the tab (pause, a dropped connection); nothing is left in localStorage.
        storeFingerprintForResuming: false,
        metadata: { path, contentType: file.type || 'application/octet-stream', ...preconditions },
        onProgress: (sent, total) => update(id, { sent, total }),
        onSuccess: () => {
          update(id, { state: 'done', sent: file.size })
          uploads.current.delete(id)
          settle(id)
          uploaded.current()
        },
        onError: (error) => {
          update(id, { state: 'failed', error: messageOf(error) })
          settle(id)
        }
      })
      uploads.current.set(id, upload)
      waiting.current.push(id)
      setTransfers((all) => [...all, { id, name: path.slice(path.lastIndexOf('/') + 1), sent: 0, total: file.size, state: 'waiting' }])
    }
    pump()
  }

  return {
    transfers,
    start,
    pause: (id: number) => {
      void uploads.current.get(id)?.abort()
      update(id, { state: 'paused' })
      settle(id)
    },
    resume: (id: number) => {
      waiting.current.push(id)
      update(id, { state: 'waiting' })
      pump()
    },
    clearFinished: () => setTransfers((all) => all.filter((transfer) => transfer.state !== 'done')),
    cancel: (id: number) => {
      void uploads.current.get(id)?.abort(true)
      uploads.current.delete(id)
      setTransfers((all) => all.filter((transfer) => transfer.id !== id))
      settle(id)
    }
  }
}

/** What a person can do about a failed upload: the service's answer, said as the API's refusals are. */
function messageOf (error: Error | DetailedError) {
  const answer = 'originalResponse' in error ? error.originalResponse : null
  return answer ? refusal(answer.getStatus(), answer.getBody(), error.message).message : error.message
}

type Uploads = ReturnType<typeof useUploads>

export function Transfers ({ uploads }: { uploads: Uploads }) {
  if (uploads.transfers.length === 0) return null
  return (
    <section aria-label="Uploads" class="transfers">
      <ul>
        {uploads.transfers.map((transfer) => (
          <li key={transfer.id}>
            <span>{transfer.name}</span>
            <progress max={transfer.total} value={transfer.sent} aria-label={`Uploading ${transfer.name}`} />
            {transfer.state === 'waiting' && <span>Waiting</span>}
            {transfer.state === 'sending' && <button type="button" onClick={() => uploads.pause(transfer.id)}>Pause</button>}
            {transfer.state === 'paused' && <button type="button" onClick={() => uploads.resume(transfer.id)}>Resume</button>}
            {transfer.state !== 'done' && <button type="button" onClick={() => uploads.cancel(transfer.id)}>Cancel</button>}
            {transfer.state === 'done' && <span>Uploaded</span>}
            {transfer.error && <span role="alert" class="error">{transfer.error}</span>}
          </li>
        ))}
      </ul>
      {uploads.transfers.some((transfer) => transfer.state === 'done') && <button type="button" onClick={uploads.clearFinished}>Clear finished</button>}
    </section>
  )
}
