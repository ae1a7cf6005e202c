import { BadRequestError } from '../errors.js'

/** One condition of an If header list: a state token (`<…>`) or an entity tag (`[…]`), maybe negated. */
export interface Condition {
  not: boolean
  token?: string
  etag?: string
}

/** A list of conditions, all of which must hold, about `resource` (a tagged list's URL) or the request's own. */
export interface IfList {
  resource?: string
  conditions: Condition[]
}

/**
 * RFC 4918 §10.4: `If: (<token> ["etag"]) (Not <DAV:no-lock>)` or tagged
 * `If: <http://host/dav/a> (<token>)`. Throws 400 on what does not parse.
 */
export function parseIf (header: string): IfList[] {
  const lists: IfList[] = []
  let resource: string | undefined
  let at = 0
  const malformed = () => new BadRequestError('the If header does not parse (RFC 4918 §10.4)')
  const skipSpace = () => { while (at < header.length && /\s/.test(header[at])) at++ }
  const until = (end: string) => {
    const close = header.indexOf(end, at)
    if (close < 0) throw malformed()
    const text = header.slice(at, close)
    at = close + 1
    return text
  }
  for (skipSpace(); at < header.length; skipSpace()) {
    if (header[at] === '<') {
      at++
      resource = until('>')
      continue
    }
    if (header[at] !== '(') throw malformed()
    at++
    const conditions: Condition[] = []
    for (skipSpace(); header[at] !== ')'; skipSpace()) {
      if (at >= header.length) throw malformed()
      let not = false
      if (header.slice(at, at + 3).toLowerCase() === 'not') {
        not = true
        at += 3
        skipSpace()
      }
      if (header[at] === '<') {
        at++
        conditions.push({ not, token: until('>') })
      } else if (header[at] === '[') {
        at++
        conditions.push({ not, etag: until(']') })
      } else throw malformed()
    }
    at++
    if (conditions.length === 0) throw malformed()
    lists.push({ ...resource === undefined ? {} : { resource }, conditions })
  }
  if (lists.length === 0) throw malformed()
  return lists
}

/** The lock tokens a request submits: every state token its If header names. */
export function submittedTokens (lists: IfList[]): Set<string> {
  return new Set(lists.flatMap((list) => list.conditions.flatMap((condition) => condition.token === undefined ? [] : [condition.token])))
}

/** What a list's conditions are checked against: a resource's ETag (none when it does not exist) and the tokens of the locks on it. */
export interface ResourceState {
  etag?: string
  tokens: Set<string>
}

/** Whether the header holds: one of its lists holds wholly, each about its own resource. */
export async function ifHolds (lists: IfList[], stateOf: (resource: string | undefined) => Promise<ResourceState>): Promise<boolean> {
  for (const list of lists) {
    const state = await stateOf(list.resource)
    const holds = list.conditions.every(({ not, token, etag }) => {
      const matches = token !== undefined ? state.tokens.has(token) : state.etag !== undefined && sameEtag(etag!, state.etag)
      return matches !== not
    })
    if (holds) return true
  }
  return false
}

/** Entity tags compared strongly, a weak prefix aside (clients echo what they were given). */
const sameEtag = (given: string, current: string) => given.replace(/^W\//, '') === current.replace(/^W\//, '')
