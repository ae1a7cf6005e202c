import { watch } from 'node:fs'

export interface KeepInStepOptions {
  localDir: string
  /** Waits for the next changes of the remote side; resolves with whether there were any. */
  nextRemoteChanges (): Promise<boolean>
  /** One sync pass; resolves with whether it left files that were still being written. */
  pass (): Promise<{ unsettled: boolean }>
  /** How long the folder must be quiet (and a file unchanged) before a pass sends what changed. */
  quietMs: number
  /** A failure to follow the remote side or of a pass, before trying again. */
  onFailure (error: unknown): void
  signal: AbortSignal
}

// After a failure (the service out of reach), the wait before trying again.
const RETRY_MS = 5000

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(done, ms)
  function done () {
    clearTimeout(timer)
    signal.removeEventListener('abort', done)
    resolve()
  }
  signal.addEventListener('abort', done, { once: true })
})

/**
 * Keeps a folder and a remote prefix in step until `signal` aborts: runs `pass` again after each
 * burst of changes, of the local folder (its file events, once it has been quiet `quietMs`) or of
 * the remote side (the journal), and again shortly while a pass left a file still being written.
 * A pass decides everything itself, so a burst is one pass whatever it held, and a pass caused by
 * the previous one's own writes finds nothing to do.
 */
export async function keepInStep ({ localDir, nextRemoteChanges, pass, quietMs, onFailure, signal }: KeepInStepOptions): Promise<void> {
  let due = false
  let lastLocalChange = 0
  let wake: () => void = () => {}
  const mark = () => {
    due = true
    wake()
  }
  const watcher = watch(localDir, { recursive: true, signal }, () => {
    lastLocalChange = Date.now()
    mark()
  })
  watcher.on('error', () => {})
  const following = (async () => {
    while (!signal.aborted) {
      try {
        if (await nextRemoteChanges()) mark()
      } catch (error) {
        if (signal.aborted) return
        onFailure(error)
        await sleep(RETRY_MS, signal)
      }
    }
  })()
  try {
    while (!signal.aborted) {
      if (!due) {
        await new Promise<void>((resolve) => {
          wake = () => {
            signal.removeEventListener('abort', wake)
            resolve()
          }
          signal.addEventListener('abort', wake, { once: true })
        })
        continue
      }
      const quietFor = quietMs - (Date.now() - lastLocalChange)
      if (quietFor > 0) {
        await sleep(quietFor, signal)
        continue
      }
      due = false
      try {
        const { unsettled } = await pass()
        if (unsettled) setTimeout(mark, quietMs).unref()
      } catch (error) {
        if (signal.aborted) return
        onFailure(error)
        await sleep(RETRY_MS, signal)
        due = true
      }
    }
  } finally {
    watcher.close()
    await following
  }
}
