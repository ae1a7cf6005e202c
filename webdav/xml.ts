import { DOMParser, type Document, type Element, type Node } from '@xmldom/xmldom'
import type { FastifyRequest } from 'fastify'
import { BadRequestError, PayloadTooLargeError } from '../errors.js'
import { INPUT_LIMITS } from '../limits.js'
import { readXmlBody } from '../xml-body.js'

// WebDAV's request and answer bodies: small XML documents in the DAV: namespace and others.

export const DAV = 'DAV:'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }
/** Text for an element's content (an ETag's quotes stay quotes). */
// Tested first: most text has nothing to escape, and a test costs a third of a replace.
const NEEDS_ESCAPE = /[&<>]/
export const escapeXml = (text: string) => NEEDS_ESCAPE.test(text) ? text.replace(/[&<>]/g, (c) => ESCAPES[c]) : text
const escapeAttribute = (text: string) => text.replace(/[&<>"]/g, (c) => ESCAPES[c])

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n'

/** `<D:error>` naming a precondition, as RFC 4918 §16 writes one. */
export const errorXml = (condition: string, hrefs: string[] = []) =>
  `${XML_DECLARATION}<D:error xmlns:D="DAV:"><D:${condition}>${hrefs.map((href) => `<D:href>${escapeXml(href)}</D:href>`).join('')}</D:${condition}></D:error>`

/** A request body read whole, up to `maxBytes` (413 past it); undefined when empty. */
export async function bodyText (request: FastifyRequest, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of request.raw) {
    length += (chunk as Buffer).length
    if (length > maxBytes) throw new PayloadTooLargeError(`a WebDAV request body is at most ${maxBytes} bytes`)
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  return text.trim() === '' ? undefined : text
}

/**
 * A request's XML document (PROPFIND, PROPPATCH, LOCK), read and bounded as it arrives by the one
 * XML reader (bytes, elements, depth, no DOCTYPE), then parsed to a DOM; undefined when there is none.
 */
export async function davDocument (request: FastifyRequest): Promise<Document | undefined> {
  // Not destroyed when refused midway: the error handler answers, then lets the connection go.
  const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>
  const read = await readXmlBody(body, { maxBytes: INPUT_LIMITS.davXmlBytes, maxElements: INPUT_LIMITS.davXmlElements })
  return read && parseXml(read.text)
}

/** The document in `text`, or 400: malformed XML, a namespace misused, a DOCTYPE (entities that expand). */
export function parseXml (text: string): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new BadRequestError('a WebDAV request body may not have a DOCTYPE')
  try {
    return new DOMParser({ onError: (level, message) => { if (level !== 'warning') throw new Error(message) } }).parseFromString(text, 'application/xml')
  } catch (error) {
    throw new BadRequestError(`the request body is not well-formed XML: ${(error as Error).message.split('\n', 1)[0]}`)
  }
}

/** The element children of `node`. */
export const childElements = (node: Node): Element[] =>
  Array.from(node.childNodes as unknown as ArrayLike<Node>).filter((child): child is Element => child.nodeType === 1)

/** The first child element of `node` named `name` in DAV:. */
export const davChild = (node: Node, name: string): Element | undefined =>
  childElements(node).find((child) => child.namespaceURI === DAV && child.localName === name)

/** The root element, when it is `name` in DAV:; else 400. */
export function davRoot (document: Document, name: string): Element {
  const root = document.documentElement
  if (!root || root.namespaceURI !== DAV || root.localName !== name) throw new BadRequestError(`the request body must be a DAV:${name} document`)
  return root
}

/** An element named by a namespace and a local name, written with a prefix of its own. */
export function elementXml ({ namespace, name }: { namespace: string, name: string }, content?: string): string {
  if (namespace === DAV) return content === undefined || content === '' ? `<D:${name}/>` : `<D:${name}>${content}</D:${name}>`
  const declared = namespace === '' ? `<${name} xmlns=""` : `<x:${name} xmlns:x="${escapeAttribute(namespace)}"`
  const close = namespace === '' ? name : `x:${name}`
  return content === undefined || content === '' ? `${declared}/>` : `${declared}>${content}</${close}>`
}
