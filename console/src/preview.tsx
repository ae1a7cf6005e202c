import { useEffect, useState } from 'preact/hooks'
import type { Api } from './api.js'
import { useModal } from './dialogs.js'
import { useAction } from './use-action.js'
import { extensionOf } from './kinds.js'
import type { RowAction } from './rights.js'

type Kind = 'image' | 'text' | 'pdf' | 'audio' | 'video'

const KINDS: Record<Kind, string[]> = {
  image: ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'bmp', 'svg'],
  text: ['txt', 'md', 'markdown', 'csv', 'tsv', 'json', 'log', 'xml', 'yaml', 'yml', 'toml', 'ini', 'html', 'css', 'js', 'ts', 'py', 'sh', 'sql'],
  pdf: ['pdf'],
  audio: ['mp3', 'wav', 'ogg', 'oga', 'm4a', 'flac', 'opus'],
  video: ['mp4', 'webm', 'ogv', 'mov', 'm4v']
}
// The start of a text is enough to see what it is; an image or a PDF is read whole, so up to a size.
const TEXT_BYTES = 256 * 1024
const WHOLE_BYTES = 50 * 1024 * 1024
// Pictures and PDFs are shown as what they are named, never as a page that could run a script.
const BLOB_TYPE: Partial<Record<Kind, (extension: string) => string>> = {
  image: (extension) => extension === 'svg' ? 'image/svg+xml' : `image/${extension === 'jpg' ? 'jpeg' : extension}`,
  pdf: () => 'application/pdf',
  // Audio and video are read whole only through someone else's share, where no link can be made.
  audio: (extension) => `audio/${extension === 'mp3' ? 'mpeg' : extension}`,
  video: (extension) => `video/${extension === 'ogv' ? 'ogg' : extension === 'mov' ? 'quicktime' : extension}`
}

export const kindOf = (name: string): Kind | undefined => (Object.keys(KINDS) as Kind[]).find((kind) => KINDS[kind].includes(extensionOf(name)))

type Shown = { text: string, cut: boolean } | { url: string }

/** A file shown where it is: text as text, pictures and PDFs read through the API, audio and video
 *  streamed from a signed link (the player asks for ranges). */
export interface PreviewProps {
  api: Api
  path: string
  size: number
  onClose: () => void
  onUnauthorized: () => void
  /** What the person may do with the file (rights.ts): its preview offers those of them it has. */
  actions: RowAction[]
  /** The file's own actions, from its preview. */
  onAction: (action: 'download' | 'share' | 'versions') => void
  /** The previous and next files that have a preview, in the folder's order. */
  previous?: () => void
  next?: () => void
}

export function Preview ({ api, path, size, onClose, onUnauthorized, actions, onAction, previous, next }: PreviewProps) {
  const dialog = useModal()
  const name = path.slice(path.lastIndexOf('/') + 1)
  const kind = kindOf(name)!
  const [shown, setShown] = useState<Shown>()
  const { error, attempt } = useAction(onUnauthorized)

  useEffect(() => {
    let url: string | undefined
    void attempt(async () => {
      if (kind === 'text') {
        const text = await (await api.read(path, size > TEXT_BYTES ? TEXT_BYTES : undefined)).text()
        return setShown({ text, cut: size > TEXT_BYTES })
      }
      // Streamed from a link where the person may make one (not through someone else's share).
      if ((kind === 'audio' || kind === 'video') && actions.includes('share')) return setShown({ url: (await api.link(path, 'download', 3600)).url })
      if (size > WHOLE_BYTES) throw new Error('This file is too large to preview here: download it instead.')
      const bytes = await (await api.read(path)).arrayBuffer()
      url = URL.createObjectURL(new Blob([bytes], { type: BLOB_TYPE[kind]!(extensionOf(name)) }))
      setShown({ url })
    })
    return () => { if (url) URL.revokeObjectURL(url) }
  }, [path])
  // Left and right arrows go through the folder's files, as a photo viewer does (not while typing
  // or in a player, which take the arrows for themselves).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement | null)?.closest('audio, video, input')) return
      if (event.key === 'ArrowLeft' && previous) previous()
      if (event.key === 'ArrowRight' && next) next()
    }
    const element = dialog.current
    element?.addEventListener('keydown', onKey)
    return () => element?.removeEventListener('keydown', onKey)
  }, [previous, next])

  return (
    <dialog ref={dialog} class="preview" aria-labelledby="preview-title" onClose={onClose}>
      <h2 id="preview-title">{name}</h2>
      {error && <p role="alert" class="error">{error}</p>}
      {!shown && !error && <p role="status">Loading…</p>}
      {shown && 'text' in shown && <pre tabIndex={0} aria-label={`Contents of ${name}`}>{shown.text}{shown.cut ? '\n…' : ''}</pre>}
      {shown && 'url' in shown && kind === 'image' && <img src={shown.url} alt={name} />}
      {shown && 'url' in shown && kind === 'pdf' && <iframe src={shown.url} title={name} />}
      {shown && 'url' in shown && kind === 'audio' && <audio src={shown.url} controls aria-label={name} />}
      {shown && 'url' in shown && kind === 'video' && <video src={shown.url} controls aria-label={name} />}
      <div class="inline preview-actions">
        <button type="button" onClick={previous} disabled={!previous} aria-label="Previous file">← Previous</button>
        <button type="button" onClick={next} disabled={!next} aria-label="Next file">Next →</button>
        <span class="spacer" />
        {(['download', 'share', 'versions'] as const).filter((action) => actions.includes(action)).map((action) => (
          <button key={action} type="button" onClick={() => onAction(action)}>{action[0].toUpperCase() + action.slice(1)}</button>
        ))}
        <button type="button" onClick={() => dialog.current?.close()}>Close</button>
      </div>
    </dialog>
  )
}
