// S3's answers are XML: written here, and the few request bodies S3 takes (a Delete, a
// CompleteMultipartUpload) read here, small and without a DOCTYPE.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c])

export type XmlValue = string | number | boolean | undefined | XmlNode | XmlValue[]
export interface XmlNode { [element: string]: XmlValue }

/** Elements from `node`, in its order; an array is its element repeated, undefined is left out. */
function elements (node: XmlNode): string {
  let xml = ''
  for (const [name, value] of Object.entries(node)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined) continue
      xml += `<${name}>${typeof item === 'object' ? elements(item as XmlNode) : escape(String(item))}</${name}>`
    }
  }
  return xml
}

const NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/'

/** A whole answer: `<root xmlns=…>…</root>`, of elements or of text. */
export function xmlDocument (root: string, content: XmlNode | string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${NAMESPACE}">${typeof content === 'string' ? escape(content) : elements(content)}</${root}>`
}

/** An error answer, as S3 writes one (no namespace). */
export function errorDocument (node: XmlNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${elements(node)}</Error>`
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function unescape (text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16))
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)))
    return ENTITIES[entity] ?? whole
  })
}

/** The inner text of each `<name>` element of `xml` (not nested in itself), unescaped when `text`. */
export function childrenNamed (xml: string, name: string): string[] {
  const found: string[] = []
  const pattern = new RegExp(`<(?:[A-Za-z0-9]+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[A-Za-z0-9]+:)?${name}>|<(?:[A-Za-z0-9]+:)?${name}(?:\\s[^>]*)?/>`, 'g')
  for (const match of xml.matchAll(pattern)) found.push(match[1] ?? '')
  return found
}

/** The text of the first `<name>` in `xml`, unescaped; undefined when there is none. */
export function textOf (xml: string, name: string): string | undefined {
  const [inner] = childrenNamed(xml, name)
  return inner === undefined ? undefined : unescape(inner.replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, '$1'))
}

/** Refuses what is not a plain XML document: a DOCTYPE (entities that expand) above all. */
export function isPlainXml (xml: string): boolean {
  return !/<!DOCTYPE|<!ENTITY/i.test(xml)
}
