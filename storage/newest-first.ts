// Pages of rows listed newest first (the trash, versions): where a page ends is its last row's time
// and id (the id breaks ties), given to the client as an opaque continuation token.
import { BadRequestError } from '../errors.js'

import type { NewestFirstCursor } from '../objects.js'

export type { NewestFirstCursor }

export function decodeCursor (token: string | undefined): NewestFirstCursor | undefined {
  if (token === undefined) return undefined
  const [at, id] = Buffer.from(token, 'base64url').toString().split(' ')
  if (!id || Number.isNaN(Date.parse(at))) throw new BadRequestError('continuationToken is not one this service gave')
  return { at, id }
}

export const encodeCursor = ({ at, id }: NewestFirstCursor) => Buffer.from(`${at} ${id}`).toString('base64url')

/** One page of `rows` (read `limit + 1`, to tell whether more follow), with the token of the next. */
export function pageOf<T extends { id: string }> (rows: T[], limit: number, timeOf: (row: T) => Date) {
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  return rows.length > limit && last
    ? { shown, isTruncated: true as const, continuationToken: encodeCursor({ at: timeOf(last).toISOString(), id: last.id }) }
    : { shown, isTruncated: false as const }
}
