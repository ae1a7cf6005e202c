/**
 * A refusal in WebDAV's terms: a status, and for RFC 4918's preconditions the element that names
 * it (`<D:error><D:lock-token-submitted/></D:error>`).
 */
export class DavError extends Error {
  constructor (readonly status: number, message: string, readonly condition?: string, readonly hrefs: string[] = []) {
    super(message)
  }
}

export const locked = (hrefs: string[]) => new DavError(423, 'the resource is locked, and its lock token was not given', 'lock-token-submitted', hrefs)
export const preconditionFailed = (message = 'the If header\'s conditions do not hold') => new DavError(412, message)
