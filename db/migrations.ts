import { Kysely, Migrator, sql, type ColumnDefinitionBuilder, type Migration, type MigrationProvider } from 'kysely'
import { isPostgres } from './dialect.js'

// Frozen: a landed migration is never edited; changes come as a new, later-named migration.
const migrations: Record<string, Migration> = {
  '2026-11-21-organizations-and-api-keys': {
    async up (db: Kysely<any>) {
      await db.schema
        .createTable('organizations')
        .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
        .addColumn('name', 'varchar(200)', (col) => col.notNull())
        .addColumn('aws_account_id', 'varchar(12)')
        .addColumn('auth_mode', 'varchar(16)', (col) => col.notNull().defaultTo('platform'))
        .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
        .execute()
      await db.schema
        .createIndex('organizations_aws_account_id')
        .on('organizations')
        .column('aws_account_id')
        .execute()
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'varchar(16)', (col) => col.primaryKey())
        .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
        .addColumn('org_id', 'varchar(128)')
        .addColumn('name', 'varchar(200)', (col) => col.notNull())
        .addColumn('start', 'varchar(40)', (col) => col.notNull())
        .addColumn('key_hash', 'varchar(100)', (col) => col.notNull())
        .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
        .addColumn('last_used_at', 'varchar(32)')
        .addColumn('expires_at', 'varchar(32)')
        .addColumn('revoked_at', 'varchar(32)')
        .execute()
      await db.schema.createIndex('api_keys_user_id').on('api_keys').column('user_id').execute()
    },
    async down (db: Kysely<any>) {
      await db.schema.dropTable('api_keys').execute()
      await db.schema.dropTable('organizations').execute()
    }
  }
}

migrations['2026-11-22-api-key-lineage'] = {
  async up (db: Kysely<any>) {
    // The key that was used to create this one, if any: revoking it revokes this one.
    await db.schema.alterTable('api_keys').addColumn('parent_id', 'varchar(16)').execute()
    // 1 when the key traces back to the AWS method: it works only while its organization is aws-sso.
    await db.schema.alterTable('api_keys').addColumn('aws_sso_only', 'integer', (col) => col.notNull().defaultTo(0)).execute()
    await db.schema.createIndex('api_keys_parent_id').on('api_keys').column('parent_id').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropIndex('api_keys_parent_id').execute()
    await db.schema.alterTable('api_keys').dropColumn('aws_sso_only').execute()
    await db.schema.alterTable('api_keys').dropColumn('parent_id').execute()
  }
}

migrations['2026-11-23-resumable-uploads'] = {
  async up (db: Kysely<any>) {
    await db.schema
      .createTable('uploads')
      .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('content_type', 'varchar(255)', (col) => col.notNull())
      .addColumn('size', 'bigint', (col) => col.notNull())
      .addColumn('received', 'bigint', (col) => col.notNull())
      // Upload-Metadata as the client sent it, the destination's preconditions, the store's progress: JSON.
      .addColumn('metadata', 'text', (col) => col.notNull())
      .addColumn('preconditions', 'text', (col) => col.notNull())
      .addColumn('state', 'text', (col) => col.notNull())
      // Set once the upload is published: the file's ETag.
      .addColumn('etag', 'varchar(200)')
      .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
      // A lease, so that one request at a time works on an upload, on any instance.
      .addColumn('lock_owner', 'varchar(64)')
      .addColumn('lock_expires_at', 'varchar(32)')
      .addColumn('lock_wanted', 'integer', (col) => col.notNull().defaultTo(0))
      .execute()
    await db.schema.createIndex('uploads_expires_at').on('uploads').column('expires_at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('uploads').execute()
  }
}

migrations['2026-11-23-settings'] = {
  async up (db: Kysely<any>) {
    // Values the instances must share and that no one configured, such as the link-signing secret.
    await db.schema
      .createTable('settings')
      .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('value', 'text', (col) => col.notNull())
      .execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('settings').execute()
  }
}

migrations['2026-11-24-trash'] = {
  async up (db: Kysely<any>) {
    // A deleted file, kept at `object_key` (outside every user's prefix) until `expires_at`.
    await db.schema
      .createTable('trash')
      .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('object_key', 'text', (col) => col.notNull())
      .addColumn('size', 'bigint', (col) => col.notNull())
      .addColumn('etag', 'varchar(200)', (col) => col.notNull())
      .addColumn('deleted_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
      .execute()
    await db.schema.createIndex('trash_user_deleted').on('trash').columns(['user_id', 'deleted_at', 'id']).execute()
    await db.schema.createIndex('trash_expires_at').on('trash').column('expires_at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('trash').execute()
  }
}

migrations['2026-11-25-usage-and-failures'] = {
  async up (db: Kysely<any>) {
    // What each user stores, kept as writes publish: the quota is decided on this row alone, by one
    // conditional UPDATE, so that concurrent writers on any instance cannot pass it together.
    await db.schema
      .createTable('storage_usage')
      .addColumn('user_id', 'varchar(128)', (col) => col.primaryKey())
      .addColumn('file_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('file_count', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('trash_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
      // Declared lengths of unfinished resumable uploads.
      .addColumn('upload_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
      // Writes in flight: the sum of this user's rows in quota_reservations.
      .addColumn('reserved_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute()
    // A write's room, held until it publishes or fails; one whose instance died expires.
    await db.schema
      .createTable('quota_reservations')
      .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('bytes', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
      .execute()
    await db.schema.createIndex('quota_reservations_expires_at').on('quota_reservations').column('expires_at').execute()
    // `user:<id>` or `org:<id>`: overrides QUOTA_BYTES.
    await db.schema
      .createTable('quotas')
      .addColumn('subject', 'varchar(140)', (col) => col.primaryKey())
      .addColumn('bytes', 'bigint', (col) => col.notNull())
      .execute()
    // Failed authentications in the current window, per `address:<ip>` or `key:<id>`, shared by the
    // instances of a PostgreSQL deployment.
    await db.schema
      .createTable('auth_failures')
      .addColumn('subject', 'varchar(140)', (col) => col.primaryKey())
      .addColumn('failures', 'integer', (col) => col.notNull())
      .addColumn('window_ends_at', 'varchar(32)', (col) => col.notNull())
      .execute()
  },
  async down (db: Kysely<any>) {
    for (const table of ['storage_usage', 'quota_reservations', 'quotas', 'auth_failures']) await db.schema.dropTable(table).execute()
  }
}

migrations['2026-11-26-versions'] = {
  async up (db: Kysely<any>) {
    // A file's replaced content, kept at `object_key` (outside every user's prefix) and thinned by
    // the age since `kept_at`; `claimed_until`: a sweep's claim, so that one instance removes it.
    await db.schema
      .createTable('versions')
      .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('object_key', 'text', (col) => col.notNull())
      .addColumn('size', 'bigint', (col) => col.notNull())
      .addColumn('etag', 'varchar(200)', (col) => col.notNull())
      .addColumn('content_type', 'varchar(255)', (col) => col.notNull())
      .addColumn('last_modified', 'varchar(32)', (col) => col.notNull())
      .addColumn('kept_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('claimed_until', 'varchar(32)')
      .execute()
    await db.schema.createIndex('versions_user_path_kept').on('versions').columns(['user_id', 'path', 'kept_at', 'id']).execute()
    await db.schema.createIndex('versions_user_kept').on('versions').columns(['user_id', 'kept_at']).execute()
    await db.schema.alterTable('storage_usage').addColumn('version_bytes', 'bigint', (col) => col.notNull().defaultTo(0)).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('storage_usage').dropColumn('version_bytes').execute()
    await db.schema.dropTable('versions').execute()
  }
}

migrations['2026-11-27-changes'] = {
  async up (db: Kysely<any>) {
    // The change journal: every change of a user's files, in the order of `seq`, which only grows.
    await db.schema
      .createTable('changes')
      .addColumn('seq', isPostgres(db) ? 'bigserial' : 'integer', (col) => isPostgres(db) ? col.primaryKey() : col.primaryKey().autoIncrement())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('op', 'varchar(16)', (col) => col.notNull())
      .addColumn('key', 'text', (col) => col.notNull())
      .addColumn('from_key', 'text')
      .addColumn('size', 'bigint')
      .addColumn('etag', 'varchar(200)')
      .addColumn('content_type', 'varchar(255)')
      .addColumn('at', 'varchar(32)', (col) => col.notNull())
      .execute()
    await db.schema.createIndex('changes_user_seq').on('changes').columns(['user_id', 'seq']).execute()
    await db.schema.createIndex('changes_at').on('changes').column('at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('changes').execute()
  }
}

migrations['2026-11-28-webhooks'] = {
  async up (db: Kysely<any>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('prefix', 'text', (col) => col.notNull())
      .addColumn('secret', 'varchar(128)', (col) => col.notNull())
      .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('disabled', 'integer', (col) => col.notNull().defaultTo(0))
      .execute()
    await db.schema.createIndex('webhooks_user').on('webhooks').column('user_id').execute()
    // The delivery queue: one row per change and webhook, queued with the change's journal entry,
    // taken by one instance at a time (`claimed_until`), kept a while once finished.
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', isPostgres(db) ? 'bigserial' : 'integer', (col) => isPostgres(db) ? col.primaryKey() : col.primaryKey().autoIncrement())
      .addColumn('webhook_id', 'varchar(32)', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('op', 'varchar(16)', (col) => col.notNull())
      .addColumn('key', 'text', (col) => col.notNull())
      .addColumn('from_key', 'text')
      .addColumn('size', 'bigint')
      .addColumn('etag', 'varchar(200)')
      .addColumn('at', 'varchar(32)', (col) => col.notNull())
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('claimed_until', 'varchar(32)')
      .addColumn('last_error', 'varchar(500)')
      .addColumn('finished_at', 'varchar(32)')
      .execute()
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute()
    await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute()
    await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').column('finished_at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('webhook_deliveries').execute()
    await db.schema.dropTable('webhooks').execute()
  }
}

migrations['2026-11-29-s3-credentials'] = {
  async up (db: Kysely<any>) {
    // Long-lived S3 access keys: SigV4 needs the secret itself, so it is kept sealed (AES-256-GCM
    // under S3_CREDENTIALS_KEY), never as a hash.
    await db.schema
      .createTable('s3_credentials')
      .addColumn('access_key_id', 'varchar(32)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('org_id', 'varchar(128)')
      .addColumn('name', 'varchar(100)', (col) => col.notNull())
      .addColumn('secret_sealed', 'text', (col) => col.notNull())
      .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('last_used_at', 'varchar(32)')
      .execute()
    await db.schema.createIndex('s3_credentials_user').on('s3_credentials').column('user_id').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('s3_credentials').execute()
  }
}

migrations['2026-11-29-s3-multipart'] = {
  async up (db: Kysely<any>) {
    // An S3 multipart upload until it is completed or aborted: its parts are objects of their own
    // (outside every user's files) until they are joined into the file.
    await db.schema
      .createTable('s3_multipart_uploads')
      .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('org_id', 'varchar(128)')
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('content_type', 'varchar(255)', (col) => col.notNull())
      .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('metadata', 'text')
      .execute()
    await db.schema.createIndex('s3_multipart_uploads_user_path').on('s3_multipart_uploads').columns(['user_id', 'path']).execute()
    await db.schema.createIndex('s3_multipart_uploads_created').on('s3_multipart_uploads').column('created_at').execute()
    await db.schema
      .createTable('s3_multipart_parts')
      .addColumn('upload_id', 'varchar(64)', (col) => col.notNull())
      .addColumn('part_number', 'integer', (col) => col.notNull())
      .addColumn('size', 'bigint', (col) => col.notNull())
      .addColumn('etag', 'varchar(200)', (col) => col.notNull())
      .addColumn('object_key', 'text', (col) => col.notNull())
      .addColumn('uploaded_at', 'varchar(32)', (col) => col.notNull())
      .addPrimaryKeyConstraint('s3_multipart_parts_pk', ['upload_id', 'part_number'])
      .execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('s3_multipart_parts').execute()
    await db.schema.dropTable('s3_multipart_uploads').execute()
  }
}

migrations['2026-11-30-s3-metadata'] = {
  async up (db: Kysely<any>) {
    // x-amz-meta-* of an object written through the S3 endpoint, for the content it was written
    // with (`etag`): once the file is replaced by any route, the row no longer applies.
    await db.schema
      .createTable('s3_metadata')
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('etag', 'varchar(200)', (col) => col.notNull())
      .addColumn('metadata', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('s3_metadata_pk', ['user_id', 'path'])
      .execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('s3_metadata').execute()
  }
}

migrations['2026-12-01-webdav'] = {
  async up (db: Kysely<any>) {
    // WebDAV's dead properties (PROPPATCH), per file or folder; they follow the file's moves and go
    // with its delete (in the journal's transaction).
    await db.schema
      .createTable('webdav_properties')
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('namespace', 'text', (col) => col.notNull())
      .addColumn('name', 'varchar(255)', (col) => col.notNull())
      .addColumn('value', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('webdav_properties_pk', ['user_id', 'path', 'namespace', 'name'])
      .execute()
    // WebDAV write locks, held in the database so that every instance honours them.
    await db.schema
      .createTable('webdav_locks')
      .addColumn('token', 'varchar(100)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('depth', 'varchar(10)', (col) => col.notNull())
      .addColumn('scope', 'varchar(10)', (col) => col.notNull())
      .addColumn('owner', 'text', (col) => col.notNull())
      .addColumn('timeout_seconds', 'integer', (col) => col.notNull())
      .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
      .execute()
    await db.schema.createIndex('webdav_locks_user_path').on('webdav_locks').columns(['user_id', 'path']).execute()
    await db.schema.createIndex('webdav_locks_expires').on('webdav_locks').column('expires_at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('webdav_locks').execute()
    await db.schema.dropTable('webdav_properties').execute()
  }
}

// S3 credentials and webhooks made with an API key belong to its lineage: they stop when it is
// revoked and expire no later than it.
migrations['2026-12-02-key-lineage-and-swept-journals'] = {
  async up (db: Kysely<any>) {
    for (const table of ['s3_credentials', 'webhooks']) {
      await db.schema.alterTable(table).addColumn('api_key_id', 'varchar(64)').execute()
      await db.schema.alterTable(table).addColumn('expires_at', 'varchar(32)').execute()
    }
    // Deletes made with an S3 credential that skips the trash (a backup tool's own lock files) are final.
    await db.schema.alterTable('s3_credentials').addColumn('skip_trash', 'integer', (col) => col.notNull().defaultTo(0)).execute()
    // How far a sweep removed each user's journal: a cursor says nothing of other users' changes,
    // so whether it is too old is a question of its user's entries alone.
    await db.schema
      .createTable('changes_swept')
      .addColumn('user_id', 'varchar(128)', (col) => col.primaryKey())
      .addColumn('seq', 'bigint', (col) => col.notNull())
      .execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('changes_swept').execute()
    await db.schema.alterTable('s3_credentials').dropColumn('skip_trash').execute()
    for (const table of ['s3_credentials', 'webhooks']) {
      await db.schema.alterTable(table).dropColumn('expires_at').execute()
      await db.schema.alterTable(table).dropColumn('api_key_id').execute()
    }
  }
}

/**
 * A trigram index for search (`folded like '%text%'`) where pg_trgm can be had: installed already,
 * or installable by this role (a trusted extension since PostgreSQL 13). Without it, a search reads
 * every name of the user's (about 50 ms for 100,000). In a savepoint: a refusal ends only this.
 */
async function addTrigramIndex (db: Kysely<any>) {
  await sql`savepoint trigrams`.execute(db)
  try {
    await sql`create extension if not exists pg_trgm`.execute(db)
    await sql`create index names_trigrams on names using gin (folded gin_trgm_ops)`.execute(db)
    await sql`release savepoint trigrams`.execute(db)
  } catch {
    await sql`rollback to savepoint trigrams`.execute(db)
  }
}

migrations['2026-12-03-index-of-names'] = {
  async up (db: Kysely<any>) {
    // Keys compare as S3 lists them, by their UTF-8 bytes: SQLite's BINARY does; PostgreSQL's "C".
    const byteOrder = (col: ColumnDefinitionBuilder) => isPostgres(db) ? col.modifyFront(sql`collate "C"`) : col
    // A row per file and per folder under a user's root: a folder has a row while it was made on
    // purpose (`made`: its marker stands in the store) or holds anything, so that one level is the
    // rows of one `parent`.
    await db.schema
      .createTable('names')
      .addColumn('key', 'text', (col) => byteOrder(col).primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('parent', 'text', (col) => byteOrder(col).notNull())
      .addColumn('folder', 'integer', (col) => col.notNull())
      .addColumn('made', 'integer', (col) => col.notNull())
      .addColumn('size', 'bigint', (col) => col.notNull())
      .addColumn('etag', 'varchar(64)')
      .addColumn('content_type', 'text')
      .addColumn('last_modified', 'varchar(32)')
      // The x-amz-meta-* the S3 endpoint was given with the content, as JSON; null: none.
      .addColumn('metadata', 'text')
      // A file's key in one case and one Unicode form (db/names.ts foldCase), for search.
      .addColumn('folded', 'text')
      .execute()
    await db.schema.createIndex('names_parent').on('names').columns(['parent', 'key']).execute()
    if (isPostgres(db)) await addTrigramIndex(db)
    // Building the index from the store, a user at a time (`after`: the last key indexed); the row
    // whose user_id is '' says every user to build has a row.
    await db.schema
      .createTable('name_builds')
      .addColumn('user_id', 'varchar(128)', (col) => col.primaryKey())
      .addColumn('after', 'text')
      .addColumn('done', 'integer', (col) => col.notNull())
      .addColumn('claimed_until', 'varchar(32)')
      .execute()
    // A database that has counted no one's files is a new deployment: there is nothing to build.
    // Else the first start lists the store's users (storage/names.ts).
    if ((await db.selectFrom('storage_usage').select('user_id').limit(1).execute()).length === 0) {
      await db.insertInto('name_builds').values({ user_id: '', done: 1 }).execute()
    }
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('name_builds').execute()
    await db.schema.dropTable('names').execute()
  }
}

migrations['2026-12-04-native-multipart'] = {
  async up (db: Kysely<any>) {
    // The store's own multipart upload behind an S3 one, where the store makes them (the S3 driver):
    // its parts go straight there. Null: parts are objects of their own, joined at completion (fs).
    await db.schema.alterTable('s3_multipart_uploads').addColumn('store_upload_id', 'text').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('s3_multipart_uploads').dropColumn('store_upload_id').execute()
  }
}

migrations['2026-12-05-image-cache'] = {
  async up (db: Kysely<any>) {
    // Derived images kept in the store (storage/image-cache.ts): found by their object key, which is
    // made of their source's key, ETag and the transform; the rows say what to drop when a source
    // changes, and which go first, oldest first, past IMAGE_CACHE_BYTES.
    await db.schema
      .createTable('image_cache')
      .addColumn('object_key', 'varchar(128)', (col) => col.primaryKey())
      .addColumn('source_key', 'text', (col) => col.notNull())
      .addColumn('bytes', 'bigint', (col) => col.notNull())
      .addColumn('made_at', 'varchar(32)', (col) => col.notNull())
      .execute()
    await db.schema.createIndex('image_cache_source').on('image_cache').column('source_key').execute()
    await db.schema.createIndex('image_cache_made').on('image_cache').column('made_at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('image_cache').execute()
  }
}

migrations['2026-12-06-people'] = {
  async up (db: Kysely<any>) {
    // A row per person authenticated (DESIGN §13): who a share can be made with, found by the start
    // of their email or name within their organization. The lower-cased copies are what is searched.
    await db.schema
      .createTable('people')
      .addColumn('user_id', 'varchar(255)', (col) => col.primaryKey())
      .addColumn('org_id', 'varchar(255)')
      .addColumn('email', 'text')
      .addColumn('name', 'text')
      .addColumn('email_folded', 'text')
      .addColumn('name_folded', 'text')
      .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
      .execute()
    await db.schema.createIndex('people_org_email').on('people').columns(['org_id', 'email_folded']).execute()
    await db.schema.createIndex('people_org_name').on('people').columns(['org_id', 'name_folded']).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('people').execute()
  }
}

migrations['2026-12-07-shares'] = {
  async up (db: Kysely<any>) {
    // A share of an owner's file or folder with a person or the owner's organization (DESIGN §13).
    // `grantee` is what makes a share unique per path: the person's id, or '*' for the organization.
    await db.schema
      .createTable('shares')
      .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('owner_id', 'varchar(255)', (col) => col.notNull())
      .addColumn('owner_org_id', 'varchar(255)')
      .addColumn('path', 'text', (col) => col.notNull())
      .addColumn('grantee', 'varchar(255)', (col) => col.notNull())
      .addColumn('role', 'varchar(16)', (col) => col.notNull())
      .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
      .addColumn('expires_at', 'varchar(32)')
      .execute()
    await db.schema.createIndex('shares_owner_path_grantee').on('shares').columns(['owner_id', 'path', 'grantee']).unique().execute()
    await db.schema.createIndex('shares_grantee').on('shares').columns(['grantee']).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('shares').execute()
  }
}

migrations['2026-12-08-mounts'] = {
  async up (db: Kysely<any>) {
    // Where a grantee sees a share (DESIGN §13): a row per share and person, named at the top of
    // their tree. A null name: an organization share this person left (hidden for them only).
    await db.schema
      .createTable('mounts')
      .addColumn('share_id', 'varchar(64)', (col) => col.notNull())
      .addColumn('grantee_id', 'varchar(255)', (col) => col.notNull())
      .addColumn('name', 'text')
      .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
      .addPrimaryKeyConstraint('mounts_share_grantee', ['share_id', 'grantee_id'])
      .execute()
    // The resolver's one query: a caller's mount by name.
    await db.schema.createIndex('mounts_grantee_name').on('mounts').columns(['grantee_id', 'name']).unique().execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('mounts').execute()
  }
}

migrations['2026-12-09-multipart-into-mounts'] = {
  async up (db: Kysely<any>) {
    // The key an S3 multipart upload publishes at, chosen when it began: into a mount, the owner's
    // (DESIGN §13). Its parts count in that key's owner's quota, and a part or the completion after
    // the share ended is refused. Null: an upload begun before, at its user's own path.
    await db.schema.alterTable('s3_multipart_uploads').addColumn('into_key', 'text').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('s3_multipart_uploads').dropColumn('into_key').execute()
  }
}

migrations['2026-12-10-webdav-locks-in-owners-space'] = {
  async up (db: Kysely<any>) {
    // A lock taken through a mount is kept in the owner's files (DESIGN §13: an editor's lock binds
    // the owner too): who took it, and the share it was taken through, whose end drops it.
    await db.schema.alterTable('webdav_locks').addColumn('taken_by', 'varchar(128)').execute()
    await db.schema.alterTable('webdav_locks').addColumn('share_id', 'varchar(64)').execute()
    await db.schema.createIndex('webdav_locks_share').on('webdav_locks').column('share_id').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropIndex('webdav_locks_share').execute()
    await db.schema.alterTable('webdav_locks').dropColumn('share_id').execute()
    await db.schema.alterTable('webdav_locks').dropColumn('taken_by').execute()
  }
}

migrations['2026-12-11-quota-reservations-one-tree'] = {
  async up (db: Kysely<any>) {
    // A write under a quota inserts its reservation and deletes it when it is recorded: on SQLite
    // each commit writes every page it changed to the WAL, and a table keyed by rowid with its
    // primary key and an index on `expires_at` was three B-trees, a page each. The table holds
    // only writes in flight, so the expiry sweep reads it whole; keyed by `id` itself (WITHOUT
    // ROWID) it is one. PostgreSQL keeps its table and loses the index.
    await db.schema.dropIndex('quota_reservations_expires_at').execute()
    if (isPostgres(db)) return
    await db.schema
      .createTable('quota_reservations_by_id')
      .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(128)', (col) => col.notNull())
      .addColumn('bytes', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
      .modifyEnd(sql`without rowid`)
      .execute()
    await sql`insert into quota_reservations_by_id (id, user_id, bytes, expires_at) select id, user_id, bytes, expires_at from quota_reservations`.execute(db)
    await db.schema.dropTable('quota_reservations').execute()
    await db.schema.alterTable('quota_reservations_by_id').renameTo('quota_reservations').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.createIndex('quota_reservations_expires_at').on('quota_reservations').column('expires_at').execute()
  }
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

export async function migrateToLatest (db: Kysely<any>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName
    throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`)
  }
}

/**
 * Reads a table, not just `select 1`: on SQLite that never opens the database file, so it would pass
 * with the file gone or the schema missing.
 */
export async function ping (db: Kysely<any>): Promise<void> {
  await sql`select id from api_keys limit 1`.execute(db)
}
