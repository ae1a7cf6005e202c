// S3's answers are XML, written here. The few request bodies S3 takes (a Delete, a
// CompleteMultipartUpload) are read by xml-body.ts, as WebDAV's are.

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
