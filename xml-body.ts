import { SaxesParser } from 'saxes'
import { BadRequestError, PayloadTooLargeError } from './errors.js'
import { INPUT_LIMITS } from './limits.js'

// XML request bodies (S3's Delete and CompleteMultipartUpload, WebDAV's PROPFIND, PROPPATCH and LOCK)
// read by one linear parser as their bytes arrive, every bound checked on the way: a hostile body is
// refused at the byte, element or depth that passes its limit, never parsed whole first.

/** An element as the front ends read it: its name, its namespace, its text, its child elements. */
export interface XmlElement {
  name: string
  namespace: string
  text: string
  children: XmlElement[]
}

export interface XmlBodyLimits {
  maxBytes: number
  maxElements: number
  maxDepth?: number
}

/**
 * The document a body holds, with its text; undefined when the body is empty or only white space.
 * 413 past `maxBytes`; 400 when it is not well-formed, has a DOCTYPE (entities that expand), an
 * entity XML does not define, or more elements or depth than allowed.
 */
export async function readXmlBody (body: AsyncIterable<Buffer | string>, { maxBytes, maxElements, maxDepth = INPUT_LIMITS.xmlDepth }: XmlBodyLimits): Promise<{ root: XmlElement, text: string } | undefined> {
  const parser = new SaxesParser({ xmlns: true, position: true })
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const open: XmlElement[] = []
  let root: XmlElement | undefined
  let elements = 0
  const refuse = (why: string): never => { throw new BadRequestError(`the XML body is refused: ${why}`) }
  parser.on('error', (error) => refuse(error.message.replace(/^(\d+):(\d+): (.*?)\.?$/, '$3 (line $1, column $2)')))
  parser.on('doctype', () => refuse('a DOCTYPE is not allowed'))
  parser.on('opentag', (tag) => {
    if (++elements > maxElements) refuse(`it has more than ${maxElements} elements`)
    if (open.length >= maxDepth) refuse(`it nests deeper than ${maxDepth} elements`)
    const element: XmlElement = { name: tag.local ?? tag.name, namespace: tag.uri ?? '', text: '', children: [] }
    const parent = open.at(-1)
    if (parent) parent.children.push(element)
    else root = element
    open.push(element)
  })
  parser.on('closetag', () => { open.pop() })
  parser.on('text', (text) => { const current = open.at(-1); if (current) current.text += text })
  parser.on('cdata', (text) => { const current = open.at(-1); if (current) current.text += text })

  let bytes = 0
  let text = ''
  let started = false
  const feed = (part: string) => {
    text += part
    if (!started && part.trim() === '') return
    started = true
    parser.write(part)
  }
  const decoded = (chunk?: Buffer | string) => {
    try {
      return typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: chunk !== undefined })
    } catch {
      return refuse('it is not UTF-8')
    }
  }
  for await (const chunk of body) {
    bytes += chunk.length
    if (bytes > maxBytes) throw new PayloadTooLargeError(`an XML request body is at most ${maxBytes} bytes`)
    feed(decoded(chunk))
  }
  feed(decoded())
  if (!started) return undefined
  parser.close()
  if (!root) refuse('it has no root element')
  return { root: root!, text }
}

/** The first child of `element` named `name` (in any namespace). */
export const childNamed = (element: XmlElement, name: string): XmlElement | undefined => element.children.find((child) => child.name === name)
