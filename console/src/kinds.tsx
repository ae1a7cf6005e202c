// What a row is, at a glance: an icon per kind of file (lucide's), and a thumbnail for a picture,
// made by the service (GET /api/images) and asked for only once its row is in view.
import { h } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { File, FileArchive, FileCode, FileImage, FileMusic, FileText, FileType, FileVideo, Folder, type IconNode } from 'lucide'
import type { Api } from './api.js'

type Glyph = 'folder' | 'image' | 'video' | 'audio' | 'pdf' | 'text' | 'code' | 'archive' | 'file'

const EXTENSIONS: Array<[Exclude<Glyph, 'folder' | 'file'>, string[]]> = [
  ['image', ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'bmp', 'svg', 'tif', 'tiff', 'heic']],
  ['video', ['mp4', 'webm', 'ogv', 'mov', 'm4v', 'mkv', 'avi']],
  ['audio', ['mp3', 'wav', 'ogg', 'oga', 'm4a', 'flac', 'opus', 'aac']],
  ['pdf', ['pdf']],
  ['code', ['js', 'mjs', 'ts', 'tsx', 'jsx', 'py', 'sh', 'sql', 'json', 'html', 'css', 'go', 'rs', 'java', 'c', 'h', 'cpp', 'rb', 'php', 'yaml', 'yml', 'toml', 'xml']],
  ['text', ['txt', 'md', 'markdown', 'csv', 'tsv', 'log', 'ini', 'rtf', 'doc', 'docx', 'odt']],
  ['archive', ['zip', 'tar', 'gz', 'tgz', 'bz2', 'xz', '7z', 'rar', 'zst']]
]
const GLYPHS: Record<Glyph, IconNode> = { folder: Folder, image: FileImage, video: FileVideo, audio: FileMusic, pdf: FileType, text: FileText, code: FileCode, archive: FileArchive, file: File }
// Pictures the service makes thumbnails of (it reads these by their content, whatever their name).
const THUMBNAILED = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'tif', 'tiff'])

/** A name's extension, in lower case; '' for a name without one. */
export const extensionOf = (name: string) => name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : ''

export const glyphOf = (name: string, folder: boolean): Glyph =>
  folder ? 'folder' : EXTENSIONS.find(([, extensions]) => extensions.includes(extensionOf(name)))?.[0] ?? 'file'

export function Icon ({ glyph }: { glyph: Glyph }) {
  return (
    <svg class={`icon icon-${glyph}`} viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">
      {GLYPHS[glyph].map(([tag, attributes]) => h(tag, attributes))}
    </svg>
  )
}

/** A picture's thumbnail once its row is in view (its icon until then, and if it cannot be made);
 *  `etag` names the version, so a changed file is asked for again. */
export function Thumbnail ({ api, path, etag, size }: { api: Api, path: string, etag: string, size: number }) {
  const place = useRef<HTMLSpanElement>(null)
  const [url, setUrl] = useState<string>()
  useEffect(() => {
    const element = place.current
    if (!element) return
    let made: string | undefined
    let gone = false
    const seen = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return
      seen.disconnect()
      // Made at twice the size drawn, for sharp screens.
      api.thumbnail(path, size * 2).then((blob) => {
        if (gone) return
        made = URL.createObjectURL(blob)
        setUrl(made)
      }, () => {})
    })
    seen.observe(element)
    return () => {
      gone = true
      seen.disconnect()
      if (made) URL.revokeObjectURL(made)
    }
  }, [path, etag, size])
  return <span ref={place} class="glyph">{url ? <img class="thumbnail" src={url} alt="" width={size} height={size} /> : <Icon glyph="image" />}</span>
}

/** Whether the service makes thumbnails of a file of this name. */
export const hasThumbnail = (name: string) => THUMBNAILED.has(extensionOf(name))

/** A row's picture, drawn `size` CSS pixels square (32 in a list; the stylesheet sizes it): a thumbnail for a picture the service
 *  reads, else the icon of its kind. */
export function RowGlyph ({ api, name, path, folder, etag, size = 32 }: { api: Api, name: string, path: string, folder: boolean, etag?: string, size?: number }) {
  if (!folder && etag !== undefined && hasThumbnail(name)) return <Thumbnail api={api} path={path} etag={etag} size={size} />
  return <span class="glyph"><Icon glyph={glyphOf(name, folder)} /></span>
}
