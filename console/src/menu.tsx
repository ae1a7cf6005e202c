// One menu for the console: a button that opens a list of actions, by mouse or keyboard (WAI-ARIA's
// menu button: Enter, Space or ArrowDown opens it on its first item, arrows move, Escape closes it
// and gives focus back, a click elsewhere closes it).
import { useEffect, useRef, useState } from 'preact/hooks'

export interface MenuItem { label: string, name: string, danger?: boolean, run: () => void }

export function Menu ({ label, items }: { label: string, items: MenuItem[] }) {
  const [open, setOpen] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const list = useRef<HTMLDivElement>(null)
  const entries = () => [...(list.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])]
  const close = (focusButton: boolean) => {
    setOpen(false)
    if (focusButton) button.current?.focus()
  }

  useEffect(() => {
    if (!open) return
    entries()[0]?.focus()
    const outside = (event: PointerEvent) => {
      if (!list.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) close(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open])

  const onKeyDown = (event: KeyboardEvent) => {
    const all = entries()
    const at = all.indexOf(document.activeElement as HTMLButtonElement)
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }
    if (event.key in moves) {
      event.preventDefault()
      all[(moves[event.key] + all.length) % all.length]?.focus()
    } else if (event.key === 'Escape' || event.key === 'Tab') {
      if (event.key === 'Escape') event.preventDefault()
      close(event.key === 'Escape')
    }
  }

  return (
    <span class="menu">
      <button ref={button} type="button" class="menu-button" aria-haspopup="menu" aria-expanded={open} aria-label={label}
        onClick={() => setOpen(!open)} onKeyDown={(event) => { if (event.key === 'ArrowDown') { event.preventDefault(); setOpen(true) } }}>
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <div ref={list} role="menu" aria-label={label} class="menu-list" onKeyDown={onKeyDown}>
          {items.map((item) => (
            <button key={item.name} type="button" role="menuitem" tabIndex={-1} aria-label={item.name} class={item.danger ? 'danger' : undefined}
              onClick={() => { close(true); item.run() }}>{item.label}</button>
          ))}
        </div>
      )}
    </span>
  )
}
