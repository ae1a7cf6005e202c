import { useState } from 'preact/hooks'
import { ApiError } from './requests.js'

/** Runs a person's actions, each refusal kept as what they can do about it; a 401 signs them out. */
export function useAction (onUnauthorized: () => void) {
  const [error, setError] = useState<string>()
  async function attempt (action: () => Promise<void>) {
    setError(undefined)
    try {
      await action()
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) onUnauthorized()
      setError((failure as Error).message)
    }
  }
  return { error, attempt }
}
