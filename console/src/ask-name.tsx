import { useState } from 'preact/hooks'
import { useModal } from './dialogs.js'

interface AskNameProps {
  title: string
  label: string
  initial: string
  action: string
  /** An empty answer is one (else the field is required). */
  optional?: boolean
  onAnswer: (name: string | undefined) => void
}

/** A modal dialog asking for a name or a path: focus stays inside it until it is answered or cancelled. */
export function AskName ({ title, label, initial, action, optional = false, onAnswer }: AskNameProps) {
  const dialog = useModal()
  const [value, setValue] = useState(initial)
  const submit = (event: Event) => {
    event.preventDefault()
    const name = value.trim()
    if (name || optional) onAnswer(name)
  }
  return (
    <dialog ref={dialog} aria-labelledby="ask-title" onClose={() => onAnswer(undefined)}>
      <form onSubmit={submit}>
        <h2 id="ask-title">{title}</h2>
        <label for="ask-value">{label}</label>
        <input id="ask-value" value={value} required={!optional} onInput={(event) => setValue(event.currentTarget.value)} />
        <div class="inline">
          <button type="submit">{action}</button>
          <button type="button" onClick={() => dialog.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  )
}
