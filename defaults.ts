// Defaults shared by the configuration, the plugins' own options and the CLI. They live here, not in
// config.ts, so that plugins and the CLI can use them without loading TypeBox.

export const DEFAULT_REGION = 'us-east-1'
export const DEFAULT_BUCKET = 'stowage'
export const DEFAULT_STORAGE_DIR = './data/objects'
/** The `<root>` of `users/{userId}/<root>/{path}`. */
export const DEFAULT_STORAGE_ROOT = 'files'
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
/** The largest MAX_FILE_BYTES a server accepts: a larger file can be refused without asking one. */
export const LARGEST_MAX_FILE_BYTES = 1024 * 1024 * 1024
/** Streamed uploads (raw and resumable): S3's largest single PUT. */
export const DEFAULT_MAX_UPLOAD_BYTES = 5 * 1024 * 1024 * 1024
/** S3's largest object. */
export const LARGEST_MAX_UPLOAD_BYTES = 5 * 1024 ** 4
/** S3 part size for uploads up to `maxUploadBytes`: 8 MiB, more when S3's 10,000 parts need it. */
export const s3PartBytes = (maxUploadBytes: number) => Math.max(8 * 1024 * 1024, Math.ceil(maxUploadBytes / 10_000))
/** What one streamed upload holds on S3: two parts uploading, one filling. */
export const s3UploadBufferBytes = (maxUploadBytes: number) => 3 * s3PartBytes(maxUploadBytes)
export const DEFAULT_UPLOAD_EXPIRY_SECONDS = 86_400
/** How long a deleted file waits in the trash, as Nextcloud, Dropbox and Google Drive keep them. */
export const DEFAULT_TRASH_RETENTION_DAYS = 30
export const DEFAULT_VERSION_RETENTION_DAYS = 30
export const DEFAULT_CHANGES_RETENTION_DAYS = 30
/** S3's longest presigned URL. */
export const DEFAULT_LINK_MAX_SECONDS = 7 * 86_400
export const DEFAULT_UPLOAD_MEMORY_BYTES = 256 * 1024 * 1024
export const DEFAULT_KEY_PREFIX = 'stow'
/** What clients ask the identity provider for when they sign in: `email` and `profile` put the
 *  person's email and name in their tokens, by which colleagues find them to share with (DESIGN §13);
 *  `offline_access` is what makes Auth0 and Cognito issue a refresh token. */
export const DEFAULT_OIDC_SCOPE = 'openid email profile offline_access'
/** Derived images kept for every instance together. */
export const DEFAULT_IMAGE_CACHE_BYTES = 1024 * 1024 * 1024
/** The largest image decoded for a transform, read from its header first (DESIGN §14). */
export const DEFAULT_IMAGE_MAX_PIXELS = 100_000_000
/** Transforms at once per instance: libvips uses the cores, and Node's thread pool keeps room for files. */
export const DEFAULT_IMAGE_CONCURRENCY = 2
export const DEFAULT_BCRYPT_COST = 10
