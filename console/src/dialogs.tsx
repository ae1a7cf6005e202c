import { useEffect, useRef, useState } from 'preact/hooks'

/** A <dialog> shown as a modal once mounted: focus stays inside it until it closes. */
export function useModal () {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => { dialog.current?.showModal() }, [])
  return dialog
}

/** Copies `text` to the clipboard, through `attempt` (which shows a refusal), and says so once it has. */
export function CopyButton ({ text, label, attempt }: { text: string, label: string, attempt: (action: () => Promise<void>) => Promise<void> }) {
  const [copied, setCopied] = useState<string>()
  const copy = () => attempt(async () => {
    await navigator.clipboard.writeText(text)
    setCopied(text)
  })
  return <button type="button" onClick={copy}>{copied === text ? 'Copied' : label}</button>
}
