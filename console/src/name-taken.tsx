import { useModal } from './dialogs.js'

export type Choice = 'replace' | 'keep' | 'skip'

/** A file of this name is already here: replace it, keep both, or skip this one. */
export function NameTaken ({ name, onChoice }: { name: string, onChoice: (choice: Choice) => void }) {
  const dialog = useModal()
  return (
    <dialog ref={dialog} aria-labelledby="taken-title" onCancel={(event) => { event.preventDefault(); onChoice('skip') }}>
      <h2 id="taken-title">{name} is already here</h2>
      <div class="inline">
        <button type="button" onClick={() => onChoice('replace')}>Replace</button>
        <button type="button" onClick={() => onChoice('keep')}>Keep both</button>
        <button type="button" onClick={() => onChoice('skip')}>Skip</button>
      </div>
    </dialog>
  )
}
