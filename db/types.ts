import type { ColumnType, Generated, Selectable } from 'kysely'

/** Timestamps are ISO 8601 UTC strings: portable across SQLite and PostgreSQL, and they sort as text. */
type Timestamp = string

export interface OrganizationsTable {
  id: string
  name: string
  aws_account_id: string | null
  auth_mode: 'platform' | 'aws-sso'
  created_at: ColumnType<Timestamp, Timestamp, never>
}

export interface ApiKeysTable {
  id: string
  user_id: string
  org_id: string | null
  name: string
  start: string
  key_hash: string
  created_at: ColumnType<Timestamp, Timestamp, never>
  last_used_at: Timestamp | null
  expires_at: Timestamp | null
  revoked_at: Timestamp | null
  parent_id: string | null
  aws_sso_only: ColumnType<number, number | undefined, number>
}

export interface UploadsTable {
  id: string
  user_id: string
  path: string
  content_type: string
  /** bigint: PostgreSQL answers a string. */
  size: ColumnType<number | string, number, number>
  received: ColumnType<number | string, number, number>
  metadata: string
  preconditions: string
  state: string
  etag: string | null
  created_at: ColumnType<Timestamp, Timestamp, never>
  expires_at: Timestamp
  lock_owner: string | null
  lock_expires_at: Timestamp | null
  lock_wanted: ColumnType<number, number | undefined, number>
}

export interface SettingsTable {
  name: string
  value: string
}

export interface TrashTable {
  id: string
  user_id: string
  path: string
  object_key: string
  size: ColumnType<number | string, number, number>
  etag: string
  deleted_at: Timestamp
  expires_at: Timestamp
}

type Bigint = ColumnType<number | string, number, number>

export interface VersionsTable {
  id: string
  user_id: string
  path: string
  object_key: string
  size: Bigint
  etag: string
  content_type: string
  last_modified: Timestamp
  kept_at: Timestamp
  claimed_until: ColumnType<Timestamp | null, Timestamp | undefined, Timestamp>
}

export interface ChangesTable {
  seq: ColumnType<number | string, never, never>
  user_id: string
  op: string
  key: string
  from_key: string | null
  size: ColumnType<number | string | null, number | null, number | null>
  etag: string | null
  content_type: string | null
  at: Timestamp
}

export interface WebhooksTable {
  id: string
  user_id: string
  url: string
  prefix: string
  /** `whsec_…`: the HMAC key of its signatures, needed in full to sign. */
  secret: string
  created_at: Timestamp
  disabled: ColumnType<number, number | undefined, number>
  /** The API key it was made with, whose lineage it belongs to; null when made otherwise. */
  api_key_id: string | null
  expires_at: Timestamp | null
}

export interface WebhookDeliveriesTable {
  id: Generated<number | string>
  webhook_id: string
  op: string
  key: string
  from_key: string | null
  size: ColumnType<number | string | null, number | null, number | null>
  etag: string | null
  at: Timestamp
  /** pending, delivered or failed */
  status: string
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: Timestamp
  /** An instance's claim while it delivers: no other takes it before then. */
  claimed_until: Timestamp | null
  last_error: string | null
  finished_at: Timestamp | null
}

export interface S3CredentialsTable {
  access_key_id: string
  user_id: string
  org_id: string | null
  name: string
  secret_sealed: string
  created_at: Timestamp
  last_used_at: Timestamp | null
  /** The API key it was made with, whose lineage it belongs to; null when made otherwise. */
  api_key_id: string | null
  expires_at: Timestamp | null
  /** 1: its deletes are final, not to the trash. */
  skip_trash: ColumnType<number, number | undefined, number>
}

export interface ChangesSweptTable {
  user_id: string
  seq: ColumnType<number | string, number, number>
}

export interface S3MetadataTable {
  user_id: string
  path: string
  etag: string
  /** JSON: the x-amz-meta-* names (without the prefix) and values. */
  metadata: string
}

export interface S3MultipartUploadsTable {
  id: string
  user_id: string
  org_id: string | null
  path: string
  content_type: string
  created_at: Timestamp
  metadata: string | null
  store_upload_id: string | null
  into_key: string | null
}

export interface S3MultipartPartsTable {
  upload_id: string
  part_number: number
  size: ColumnType<number | string, number, number>
  etag: string
  object_key: string
  uploaded_at: Timestamp
}

export interface UsageTable {
  user_id: string
  file_bytes: Bigint
  file_count: Bigint
  trash_bytes: Bigint
  version_bytes: ColumnType<number | string, number | undefined, number>
  upload_bytes: Bigint
  reserved_bytes: Bigint
}

export interface QuotaReservationsTable {
  id: string
  user_id: string
  bytes: Bigint
  expires_at: Timestamp
}

export interface QuotasTable {
  subject: string
  bytes: Bigint
}

export interface AuthFailuresTable {
  subject: string
  failures: number
  window_ends_at: Timestamp
}

export interface WebdavPropertiesTable {
  user_id: string
  /** The file's path, or a folder's ending in "/". */
  path: string
  namespace: string
  name: string
  /** The property's content as XML, as it was sent (its namespaces declared within). */
  value: string
}

export interface WebdavLocksTable {
  token: string
  user_id: string
  /** The locked file's path, a folder's ending in "/" ("" for the root). */
  path: string
  depth: '0' | 'infinity'
  scope: 'exclusive' | 'shared'
  /** The DAV:owner the client gave, as XML; "" when none. */
  owner: string
  timeout_seconds: number
  expires_at: Timestamp
  /** Who took it, when not `user_id`: a grantee, through a mount of `share_id` (null: `user_id`). */
  taken_by: string | null
  share_id: string | null
}

export interface NamesTable {
  key: string
  user_id: string
  parent: string
  folder: number
  made: number
  size: ColumnType<number | string, number, number>
  etag: string | null
  content_type: string | null
  last_modified: Timestamp | null
  metadata: string | null
  folded: string | null
}

export interface NameBuildsTable {
  user_id: string
  after: string | null
  done: number
  claimed_until: Timestamp | null
}

export interface ImageCacheTable {
  object_key: string
  source_key: string
  bytes: Bigint
  made_at: Timestamp
}

export interface PeopleTable {
  user_id: string
  org_id: string | null
  email: string | null
  name: string | null
  email_folded: string | null
  name_folded: string | null
  updated_at: Timestamp
}

export interface SharesTable {
  id: string
  owner_id: string
  owner_org_id: string | null
  path: string
  /** The person's id, or '*' for everyone of the owner's organization. */
  grantee: string
  role: 'viewer' | 'editor'
  created_at: Timestamp
  expires_at: Timestamp | null
}

export interface MountsTable {
  share_id: string
  grantee_id: string
  /** Null: an organization share this person left. */
  name: string | null
  created_at: Timestamp
}

export interface Database {
  organizations: OrganizationsTable
  api_keys: ApiKeysTable
  uploads: UploadsTable
  settings: SettingsTable
  trash: TrashTable
  versions: VersionsTable
  changes: ChangesTable
  webhooks: WebhooksTable
  webhook_deliveries: WebhookDeliveriesTable
  s3_credentials: S3CredentialsTable
  changes_swept: ChangesSweptTable
  s3_multipart_uploads: S3MultipartUploadsTable
  s3_metadata: S3MetadataTable
  webdav_properties: WebdavPropertiesTable
  webdav_locks: WebdavLocksTable
  s3_multipart_parts: S3MultipartPartsTable
  storage_usage: UsageTable
  quota_reservations: QuotaReservationsTable
  quotas: QuotasTable
  auth_failures: AuthFailuresTable
  names: NamesTable
  name_builds: NameBuildsTable
  image_cache: ImageCacheTable
  people: PeopleTable
  shares: SharesTable
  mounts: MountsTable
}

export type Organization = Selectable<OrganizationsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
