import { sql, type Compilable, type Kysely, type Selectable } from 'kysely'
import { isPostgres, lookupOf, rowValues, runPrepared, standInRows } from './dialect.js'
import type { Database, NamesTable } from './types.js'

// The index of names: a row per file and per folder under each user's root, written with the
// journal's entry in one transaction (db/changes.ts), read by every listing and HEAD.

/** What the index holds of a file, or of a folder made on purpose (its key ends in `/`). */
export interface IndexedName {
  key: string
  size: number
  lastModified: Date
  etag: string
  /** Undefined in a row built from a store's listing, which does not give it. */
  contentType?: string
  /** The x-amz-meta-* the S3 endpoint was given with this content; none in a row built from a listing. */
  metadata?: Record<string, string>
}

/** A key's change, as the publisher made it: `after` is what stands now, undefined when it is gone. */
export interface NameChange {
  key: string
  userId: string
  /** The user's root, `users/{userId}/<root>/`: folders are indexed below it. */
  root: string
  after?: Omit<IndexedName, 'key'>
}

export type ListSort = 'name' | 'size' | 'lastModified'

/** Where a sorted page ended: on a folder, or on a file (its sort value and key). */
export type SortedAfter = { folder: string } | { value: string, key: string }

/** The folder a key is in: `users/u/r/a/` for `users/u/r/a/b.txt` and for `users/u/r/a/b/`. */
export const parentOf = (key: string) => key.slice(0, key.slice(0, -1).lastIndexOf('/') + 1)

/** The folders holding `key` below `root`, deepest first. */
function ancestorsOf (key: string, root: string): string[] {
  const folders: string[] = []
  for (let folder = parentOf(key); folder.length > root.length; folder = parentOf(folder)) folders.push(folder)
  return folders
}

/** The least string above every string that begins with `prefix` (in code point order, which is
 *  UTF-8's byte order): its last character, one higher. */
export function upperBound (prefix: string): string {
  const last = prefix.codePointAt(prefix.length - 1)!
  const width = last > 0xffff ? 2 : 1
  const next = last + 1 === 0xd800 ? 0xe000 : last + 1
  return prefix.slice(0, prefix.length - width) + String.fromCodePoint(next)
}

const indexed = (row: Pick<Selectable<NamesTable>, 'key' | 'size' | 'etag' | 'content_type' | 'last_modified' | 'metadata'>): IndexedName => ({
  key: row.key,
  size: Number(row.size),
  etag: row.etag ?? '',
  lastModified: new Date(row.last_modified ?? 0),
  ...row.content_type === null ? {} : { contentType: row.content_type },
  metadata: row.metadata === null ? {} : JSON.parse(row.metadata) as Record<string, string>
})

/** Text as search compares it: in one Unicode form (a name typed on a Mac and elsewhere), lower case. */
export const foldCase = (text: string) => text.normalize('NFC').toLowerCase()

const metadataColumn = (metadata: Record<string, string> | undefined) => metadata && Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : null

// The build's row that says every user to build has a row of their own.
const PLANNED = ''

const COLUMNS = ['key', 'size', 'etag', 'content_type', 'last_modified', 'metadata', 'folder'] as const

// The key of the lock that keeps writers of the journal and the index one at a time on PostgreSQL
// (the journal's NOTIFY channel's name, as instances of every release take it).
const WRITERS_LOCK = 'stowage_changes'

/** One writer of the journal and the index at a time (PostgreSQL; SQLite has one writer anyway):
 *  entries commit in the order of their `seq`, and a folder's row is never pruned under a write
 *  that adds to it. Held until the transaction ends. */
export async function takeWritersTurn (trx: Kysely<Database>) {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtextextended(${WRITERS_LOCK}, 1))`.execute(trx)
}

/** Applies the publisher's changes to the index, inside the caller's transaction. */
export async function applyNameChanges (trx: Kysely<Database>, changes: NameChange[]) {
  for (const { key, userId, root, after } of changes) {
    const folder = key.endsWith('/')
    if (after) {
      await putNames(trx, userId, [{ key, ...after }], { over: 'any' })
      await addFolders(trx, userId, ancestorsOf(key, root).map((folder) => [folder, after.lastModified]))
    } else {
      // A folder no longer made on purpose keeps its time: it was there since.
      if (folder) await trx.updateTable('names').set({ made: 0, etag: null, content_type: null }).where('key', '=', key).execute()
      else await trx.deleteFrom('names').where('key', '=', key).execute()
      await pruneFolders(trx, [...folder ? [key] : [], ...ancestorsOf(key, root)])
    }
  }
}

/** Rows for files and made folders, replacing the rows they find (`over: 'any'`: what the publisher
 *  published is what stands) or only the rows of folders that were held by what they held (a
 *  listing's names: the publisher's rows are newer). */
async function putNames (trx: Kysely<Database>, userId: string, names: IndexedName[], { over }: { over: 'any' | 'held folders' }) {
  if (names.length === 0) return
  const rows = names.map(({ key, size, etag, contentType, lastModified, metadata }) => ({
    key, user_id: userId, parent: parentOf(key), folder: Number(key.endsWith('/')), made: 1,
    size, etag, content_type: contentType ?? null, last_modified: lastModified.toISOString(), metadata: metadataColumn(metadata), folded: foldCase(key)
  }))
  const insert = (values: typeof rows) => trx.insertInto('names').values(values).onConflict((conflict) => {
    const replace = conflict.column('key').doUpdateSet(({ ref }) => ({
      made: 1, size: ref('excluded.size'), etag: ref('excluded.etag'), content_type: ref('excluded.content_type'), last_modified: ref('excluded.last_modified'), metadata: ref('excluded.metadata'), folded: ref('excluded.folded')
    }))
    return over === 'any' ? replace : replace.where('names.made', '=', 0)
  })
  await runInserts(trx, `names.put/${over}`, rows, insert)
}

/** Rows for folders that hold something, where there are none yet, dated by what first made them
 *  hold it (WebDAV's clients show a folder's date). */
async function addFolders (trx: Kysely<Database>, userId: string, folders: Array<[key: string, since: Date]>) {
  const rows = folders.map(([key, since]) => ({ key, user_id: userId, parent: parentOf(key), folder: 1, made: 0, size: 0, last_modified: since.toISOString() }))
  await runInserts(trx, 'names.addFolders', rows, (values) => trx.insertInto('names').values(values).onConflict((conflict) => conflict.column('key').doNothing()))
}

// A write's rows (its file, the folders above it) in a statement built once for each count up to
// this (see runPrepared); an index's build, a thousand rows a statement (within SQLite's and
// PostgreSQL's bounds on parameters), built each time.
const PREPARED_ROWS = 8
const ROWS_A_STATEMENT = 1000

async function runInserts<Row extends object> (trx: Kysely<Database>, name: string, rows: Row[], insert: (rows: Row[]) => Compilable) {
  for (let at = 0; at < rows.length; at += ROWS_A_STATEMENT) {
    const some = rows.slice(at, at + ROWS_A_STATEMENT)
    if (some.length > PREPARED_ROWS) await trx.executeQuery(insert(some).compile())
    else await runPrepared(trx, `${name}/${some.length}`, (value) => insert(standInRows(some, value)).compile(), rowValues(some))
  }
}

/** Removes the rows of `folders` (deepest first) that were not made on purpose and hold nothing now;
 *  a folder that stays keeps every folder above it. */
async function pruneFolders (trx: Kysely<Database>, folders: string[]) {
  for (const folder of folders) {
    const { numDeletedRows } = await trx.deleteFrom('names').where('key', '=', folder).where('made', '=', 0)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('names as child').select('child.key').where('child.parent', '=', folder))))
      .executeTakeFirst()
    if (Number(numDeletedRows) === 0) return
  }
}

/** Each folder above `objects`, with the time of the earliest of them it holds. */
function earliestBelow (objects: IndexedName[], root: string): Map<string, Date> {
  const earliest = new Map<string, Date>()
  for (const { key, lastModified } of objects) {
    for (const folder of ancestorsOf(key, root)) {
      const known = earliest.get(folder)
      if (!known || lastModified < known) earliest.set(folder, lastModified)
    }
  }
  return earliest
}

export function createNameRepository (db: Kysely<Database>) {
  const findRow = lookupOf<Selectable<NamesTable>>(db, db.selectFrom('names').select(COLUMNS).where('key', '=', '').where('made', '=', 1).compile().sql)

  return {
    /** The file or made folder at `key`; undefined when the index has none. */
    async head (key: string): Promise<IndexedName | undefined> {
      const row = await findRow([key, 1])
      return row && indexed(row)
    },

    /** Which of the folders `keys` (each ending in `/`) exist, made on purpose or holding anything,
     *  with the time each was made (none for a folder indexed before folders had one). */
    async folders (keys: string[]): Promise<Map<string, Date | undefined>> {
      const found = new Map<string, Date | undefined>()
      // A thousand keys a statement: within SQLite's and PostgreSQL's bounds on parameters.
      for (let at = 0; at < keys.length; at += 1000) {
        const rows = await db.selectFrom('names').select(['key', 'last_modified']).where('key', 'in', keys.slice(at, at + 1000)).where('folder', '=', 1).execute()
        for (const row of rows) found.set(row.key, row.last_modified === null ? undefined : new Date(row.last_modified))
      }
      return found
    },

    /**
     * A page of keys under `prefix` after `startAfter`, as a store lists them: with the delimiter,
     * one level (what lies deeper named once, as a folder), files and folders in key order sharing
     * the page; without, every file and made folder.
     */
    async list (prefix: string, { startAfter, limit, delimiter }: { startAfter?: string, limit: number, delimiter?: '/' }) {
      let query = db.selectFrom('names').select(COLUMNS)
      if (delimiter) {
        const parent = parentOf(`${prefix}x`)
        query = query.where('parent', '=', parent)
        if (prefix !== parent) query = query.where('key', '>=', prefix).where('key', '<', upperBound(prefix))
      } else {
        query = query.where('made', '=', 1)
        if (prefix !== '') query = query.where('key', '>=', prefix).where('key', '<', upperBound(prefix))
      }
      if (startAfter !== undefined) query = query.where('key', '>', startAfter)
      const rows = await query.orderBy('key').limit(limit + 1).execute()
      const shown = rows.slice(0, limit)
      const rolledUp = (row: { folder: number }) => delimiter !== undefined && row.folder === 1
      return {
        objects: shown.filter((row) => !rolledUp(row)).map(indexed),
        ...delimiter ? { folders: shown.filter(rolledUp).map((row) => row.key) } : {},
        isTruncated: rows.length > limit
      }
    },

    /**
     * One level of `parent`, folders first (by name), then files by `sort`, either way: a page after
     * `after`, which is the last folder's key, or the last file's sort value and key.
     */
    async listSorted (parent: string, sort: ListSort, descending: boolean, limit: number, after?: SortedAfter) {
      const column = sort === 'size' ? 'size' : sort === 'lastModified' ? 'last_modified' : 'key'
      const direction = descending ? 'desc' : 'asc'
      const beyond = descending ? '<' : '>'
      const folders = after === undefined || 'folder' in after
        ? await db.selectFrom('names').select(COLUMNS).where('parent', '=', parent).where('folder', '=', 1)
          .$if(after !== undefined, (query) => query.where('key', beyond, (after as { folder: string }).folder))
          .orderBy('key', direction).limit(limit + 1).execute()
        : []
      const left = limit + 1 - folders.length
      const files = left > 0
        ? await db.selectFrom('names').select(COLUMNS).where('parent', '=', parent).where('folder', '=', 0)
          .$if(after !== undefined && 'value' in after, (query) => query.where(({ or, and, eb }) => {
            const { value, key } = after as { value: string, key: string }
            if (column === 'key') return eb('key', beyond, value)
            const typed = column === 'size' ? Number(value) : value
            return or([eb(column, beyond, typed), and([eb(column, '=', typed), eb('key', '>', key)])])
          }))
          .orderBy(column, direction).$if(column !== 'key', (query) => query.orderBy('key')).limit(left).execute()
        : []
      const rows = [...folders, ...files]
      const shown = rows.slice(0, limit)
      const last = shown.at(-1)
      const valueOf = (row: typeof last & {}) => column === 'size' ? String(Number(row.size)) : column === 'key' ? row.key : row.last_modified ?? ''
      return {
        objects: shown.filter((row) => row.folder === 0).map(indexed),
        folders: shown.filter((row) => row.folder === 1).map((row) => row.key),
        next: rows.length > limit && last ? (last.folder === 1 ? { folder: last.key } : { value: valueOf(last), key: last.key }) satisfies SortedAfter : undefined
      }
    },

    /**
     * Files below `root` whose path (after `root`) holds `text`, in any case (foldCase): by name
     * after `after.key`, or newest first after `after` (its time and key).
     */
    async search (root: string, text: string, limit: number, { newest = false, after }: { newest?: boolean, after?: { value?: string, key: string } } = {}) {
      const pattern = `%${foldCase(text).replace(/[\\%_]/g, (character) => `\\${character}`)}%`
      const rows = await db.selectFrom('names').select(COLUMNS)
        .where('key', '>=', root).where('key', '<', upperBound(root)).where('folder', '=', 0)
        // On PostgreSQL, what its trigram index (if any) can answer; then, so that the root's own name never matches, after the root.
        .$if(isPostgres(db), (query) => query.where(sql<boolean>`folded like ${pattern} escape '\\'`))
        .where(sql<boolean>`substr(folded, ${[...foldCase(root)].length + 1}) like ${pattern} escape '\\'`)
        .$if(after !== undefined && !newest, (query) => query.where('key', '>', after!.key))
        .$if(after !== undefined && newest, (query) => query.where(({ or, and, eb }) => or([
          eb('last_modified', '<', after!.value!), and([eb('last_modified', '=', after!.value!), eb('key', '>', after!.key)])
        ])))
        .$if(newest, (query) => query.orderBy('last_modified', 'desc'))
        .orderBy('key').limit(limit + 1).execute()
      const shown = rows.slice(0, limit)
      const last = shown.at(-1)
      return { files: shown.map(indexed), next: rows.length > limit && last ? { value: last.last_modified ?? '', key: last.key } : undefined }
    },

    /** Applies changes found by a reindex or a read (not the publisher's: those come with the journal). */
    apply: async (changes: NameChange[]) => {
      await db.transaction().execute(async (trx) => {
        await takeWritersTurn(trx)
        await applyNameChanges(trx, changes)
      })
    },

    /** The x-amz-meta-* of the file at `key` as it is now (`etag`): its content stays, its metadata is replaced. */
    async setMetadata (key: string, etag: string, metadata: Record<string, string>) {
      await db.updateTable('names').set({ metadata: metadataColumn(metadata) }).where('key', '=', key).where('etag', '=', etag).execute()
    },

    /** The x-amz-meta-* kept before the index held them (the s3_metadata table, by path below
     *  `root` and content), into the rows of a user's names just built: a transaction a batch. */
    async adoptMetadata (userId: string, root: string) {
      let after = ''
      for (;;) {
        const rows = await db.selectFrom('s3_metadata').select(['path', 'etag', 'metadata']).where('user_id', '=', userId).where('path', '>', after)
          .orderBy('path').limit(500).execute()
        await db.transaction().execute(async (trx) => {
          for (const { path, etag, metadata } of rows) {
            await trx.updateTable('names').set({ metadata }).where('key', '=', root + path).where('etag', '=', etag).where('metadata', 'is', null).execute()
          }
        })
        if (rows.length < 500) return
        after = rows.at(-1)!.path
      }
    },

    /** A content type learnt from the store, for a row built without one. */
    async learnContentType (key: string, etag: string, contentType: string) {
      await db.updateTable('names').set({ content_type: contentType }).where('key', '=', key).where('etag', '=', etag).execute()
    },

    /** Indexes what a store listed (a build or a reindex): rows it has not (the publisher's are newer). */
    async addListed (userId: string, root: string, objects: IndexedName[], done: { after: string, claimedUntil: Date } | 'done') {
      await db.transaction().execute(async (trx) => {
        // A batch in two statements: its names (a folder the publisher indexed as holding files
        // becomes made), then the folders above them.
        await putNames(trx, userId, objects, { over: 'held folders' })
        await addFolders(trx, userId, [...earliestBelow(objects, root)])
        await trx.updateTable('name_builds').where('user_id', '=', userId)
          .set(done === 'done' ? { done: 1, after: null, claimed_until: null } : { after: done.after, claimed_until: done.claimedUntil.toISOString() }).execute()
      })
    },

    /** The bytes and the number of a user's files, as the index has them. */
    async totals (userId: string): Promise<{ fileBytes: number, fileCount: number }> {
      const row = await db.selectFrom('names').where('user_id', '=', userId).where('folder', '=', 0)
        .select(({ fn }) => [fn.coalesce(fn.sum<number | string>('size'), sql<number>`0`).as('bytes'), fn.countAll<number | string>().as('count')]).executeTakeFirstOrThrow()
      return { fileBytes: Number(row.bytes), fileCount: Number(row.count) }
    },

    /** Every user the index has names of. */
    async users (): Promise<string[]> {
      return (await db.selectFrom('names').select('user_id').distinct().execute()).map((row) => row.user_id)
    },

    /** Whether every user to build has a row (the build was planned). */
    async planned (): Promise<boolean> {
      return (await db.selectFrom('name_builds').select('user_id').where('user_id', '=', PLANNED).executeTakeFirst()) !== undefined
    },

    /** The users whose files are in the store, to be built, and the row that says so. */
    async plan (userIds: string[]) {
      const rows = [...userIds.map((user_id) => ({ user_id, done: 0 })), { user_id: PLANNED, done: 1 }]
      for (let at = 0; at < rows.length; at += 500) {
        await db.insertInto('name_builds').values(rows.slice(at, at + 500)).onConflict((conflict) => conflict.column('user_id').doNothing()).execute()
      }
    },

    /** Whether the user's names are all indexed: the build was planned, and theirs is done or was never needed. */
    async built (userId: string): Promise<boolean> {
      const rows = await db.selectFrom('name_builds').select(['user_id', 'done']).where('user_id', 'in', [PLANNED, userId]).execute()
      return rows.some((row) => row.user_id === PLANNED) && rows.every((row) => row.done === 1)
    },

    /** Whether every user's build is done. */
    async allBuilt (): Promise<boolean> {
      return await this.planned() && (await db.selectFrom('name_builds').select('user_id').where('done', '=', 0).limit(1).execute()).length === 0
    },

    /** A user's build no instance holds now, held until `until`: where it goes on from. */
    async claim (now: Date, until: Date): Promise<{ userId: string, after?: string } | undefined> {
      const free = await db.selectFrom('name_builds').select(['user_id', 'after', 'claimed_until']).where('done', '=', 0)
        .where((where) => where.or([where('claimed_until', 'is', null), where('claimed_until', '<', now.toISOString())])).limit(1).executeTakeFirst()
      if (!free) return undefined
      const taken = await db.updateTable('name_builds').set({ claimed_until: until.toISOString() }).where('user_id', '=', free.user_id).where('done', '=', 0)
        .where((where) => free.claimed_until === null ? where('claimed_until', 'is', null) : where('claimed_until', '=', free.claimed_until)).executeTakeFirst()
      // Another instance took it between the look and the update: the next claim finds another.
      if (Number(taken.numUpdatedRows) === 0) return await this.claim(now, until)
      return { userId: free.user_id, ...free.after === null ? {} : { after: free.after } }
    }
  }
}

export type NameRepository = ReturnType<typeof createNameRepository>
