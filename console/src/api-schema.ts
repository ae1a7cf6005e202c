// Made by test/console-api.test.ts from the service's OpenAPI document: do not edit.
export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: whether the database and the file store answer; ?probe=live checks only the process */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where to sign in for this service (RFC 9728)
         * @description The identity provider, the scopes, and the client id to put in the authorization request. The service exchanges the code: POST /api/auth/token.
         */
        get: operations["getProtectedResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in: exchange an authorization code (with its PKCE verifier) or an approved device code for tokens
         * @description The service is the OAuth client: the code is exchanged with its client credentials, so the refresh token belongs to the client that refreshes it. While a device code waits: 400 with `code` authorization_pending, slow_down or expired_token.
         */
        post: operations["exchangeToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/device": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a sign-in on another device (RFC 8628): a code to type at a URL
         * @description Then POST /api/auth/token {deviceCode} every `interval` seconds until the person approves.
         */
        post: operations["startDeviceSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out: revoke a refresh token at the identity provider
         * @description Where the provider has no revocation endpoint the token stays valid until it expires; the client forgets it either way.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fresh identity-provider tokens and temporary AWS credentials for your prefix
         * @description Authenticated by the refresh token itself: no Authorization header.
         */
        post: operations["refreshTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where your files are stored: bucket, region and your prefix */
        get: operations["getStorageLocation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List your files, 100 a page */
        get: operations["listFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find your files by name, 100 a page
         * @description Files whose path holds `q` (in any case and either Unicode form), by path or newest first. 503 while a deployment that was upgraded is still indexing your files.
         */
        get: operations["searchFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a file */
        get: operations["getFile"];
        /** Create or replace a file */
        put: operations["putFile"];
        post?: never;
        /** Delete a file */
        delete: operations["deleteFile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/raw/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a file as it is, or a range of it */
        get: operations["downloadFile"];
        /**
         * Create or replace a file with the body as it is, streamed
         * @description Content-Type is the file's media type (application/octet-stream when absent). The file is stored whole or not at all.
         */
        put: operations["uploadFile"];
        post?: never;
        /** Delete a file, if it is still the one you know */
        delete: operations["removeFile"];
        options?: never;
        /** The headers a download would have, without the file */
        head: operations["describeFile"];
        patch?: never;
        trace?: never;
    };
    "/api/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A URL for one file and one method that needs no credentials until it expires
         * @description A download link serves the file as `GET /api/raw/{path}` does, ranges included; an upload link takes one PUT of the file. A link cannot be widened by editing it, and cannot be revoked before it expires.
         */
        post: operations["createLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your active keys, without their secrets */
        get: operations["listKeys"];
        put?: never;
        /** Create an API key; the key itself is in this answer only */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke one of your keys, and every key created with it
         * @description Authenticated with an API key, you may revoke only that key and the keys created with it.
         */
        delete: operations["revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/copies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Copy a file or a folder, on the store's side
         * @description No byte passes through the service. If-Match applies to the source file, If-None-Match: * to the destination. A `from` ending in "/" copys every file under it; a request that stops at its time budget answers isTruncated, and the same request again goes on.
         */
        post: operations["copyFiles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/moves": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a file or a folder, on the store's side
         * @description No byte passes through the service. If-Match applies to the source file, If-None-Match: * to the destination. A `from` ending in "/" moves every file under it; a request that stops at its time budget answers isTruncated, and the same request again goes on.
         */
        post: operations["moveFiles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every file under a prefix as one zip, streamed
         * @description Names are relative to the prefix, in UTF-8; files are stored uncompressed; ZIP64 past 4 GiB. A store failing mid-way cuts the answer off: a zip that ends early is never sent as whole.
         */
        get: operations["downloadArchive"];
        put?: never;
        /**
         * Chosen files and folders of one folder as one zip, streamed
         * @description As GET /api/archive makes a folder's zip, for what a person ticked in a folder: each name zipped under itself, a folder with everything under it. 404 names the first that is not there, before the answer begins.
         */
        post: operations["downloadSelection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/folders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a folder that exists while it is empty
         * @description It is listed in `folders` by the one-level listing, costs no quota, and stays when its last file is deleted. Making one that exists changes nothing.
         */
        post: operations["makeFolder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/folders/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an empty folder */
        delete: operations["removeFolder"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/trash": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your deleted files, newest first, 100 a page */
        get: operations["listTrash"];
        put?: never;
        post?: never;
        /** Purge every file in your trash */
        delete: operations["emptyTrash"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/trash/{id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Put a deleted file back, where it was or at `to` */
        post: operations["restoreFromTrash"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/trash/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Purge one deleted file for good */
        delete: operations["purgeFromTrash"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file's earlier versions, newest first, 100 a page */
        get: operations["listVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/versions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a version as it is, or a range of it */
        get: operations["downloadVersion"];
        put?: never;
        post?: never;
        /** Remove one version for good */
        delete: operations["removeVersion"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/versions/{id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a version the file again, at its path or at `to`
         * @description The file it replaces becomes a version in turn: nothing is lost either way. If-Match applies to that file.
         */
        post: operations["restoreVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/changes/latest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your position in the journal now (it moves with your changes only): follow changes from here */
        get: operations["latestChange"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Your files' changes after a cursor, oldest first, up to 1000; with `wait`, held until one exists
         * @description Entries are written before a change is answered. An entry of a change that then failed may appear: apply entries by `etag`. A cursor older than CHANGES_RETENTION_DAYS is 410 with `code: reset`: list your files again.
         */
        get: operations["listChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your webhooks */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Have your changes POSTed to a URL, signed as Standard Webhooks
         * @description Each change (as GET /api/changes lists it) is POSTed as `{type, timestamp, data}` with `webhook-id`, `webhook-timestamp` and `webhook-signature`; a 2xx within 10 s delivers it, anything else is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, and the webhook is disabled after the last. Redirects are not followed.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a webhook and what it still had to deliver */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook's last 100 deliveries: delivered, pending (and when next) or failed, and why */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/s3-credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your S3 access keys (without their secrets) */
        get: operations["listS3Credentials"];
        put?: never;
        /** An access key for the S3 endpoint; its secret is shown once */
        post: operations["createS3Credential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/s3-credentials/{accessKeyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an S3 access key: refused at once, on every instance */
        delete: operations["revokeS3Credential"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/s3-credentials/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Temporary S3 credentials (CREDENTIALS_TTL_SECONDS), for the S3 endpoint only */
        post: operations["createS3Session"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your usage and your quota */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who you are to Stowage */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/people": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** People of your organization, found by the start of their email or name */
        get: operations["findPeople"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/shares": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What you share, by path */
        get: operations["listShares"];
        put?: never;
        /**
         * Share a file or folder of yours with a person or your organization
         * @description A folder shared becomes a folder made on purpose. The share follows the file or folder when you move or rename it, and ends when you delete it.
         */
        post: operations["share"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/shares/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End a share */
        delete: operations["unshare"];
        options?: never;
        head?: never;
        /** Change a share's role or expiry */
        patch: operations["changeShare"];
        trace?: never;
    };
    "/api/shared": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What others share with you, and where it is mounted */
        get: operations["listReceivedShares"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/shared/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Leave a share
         * @description The owner's files stay. A share with you ends; one with your whole organization is hidden for you only.
         */
        delete: operations["leaveShare"];
        options?: never;
        head?: never;
        /**
         * Rename where a share is mounted in your files
         * @description The owner's files keep their names.
         */
        patch: operations["renameMount"];
        trace?: never;
    };
    "/api/images/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An image file, resized and converted
         * @description JPEG, PNG, WebP, AVIF, GIF (its first frame) and TIFF, turned upright by their EXIF orientation and sent without metadata. The same rights as downloading the file. Made once and kept for every instance until the file changes.
         */
        get: operations["transformImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Every error answer has this shape */
        StowageError: {
            /** @description What went wrong, for a person to read */
            error: string;
            /** @description A machine-readable reason where one is defined: RFC 8628's authorization_pending, slow_down and expired_token */
            code?: string;
        };
        StowageFileEntry: {
            /** @description Path relative to your root */
            key: string;
            /** @description Size in bytes */
            size: number;
            /** Format: date-time */
            lastModified: string;
            /** @description Strong validator of the content, quoted, as in the ETag header */
            etag: string;
            /** @description Present on files at or under what is shared with you */
            shared?: {
                /** @description The share it is reached by (GET /api/shared) */
                id: string;
                role: "viewer" | "editor";
                /** @description The owner's userId */
                owner: string;
            };
        };
        StowageFileList: {
            files: components["schemas"]["StowageFileEntry"][];
            /** @description With delimiter=/: the next level's folders (`a/b/`), sharing the 100-entry page with files */
            folders?: string[];
            isTruncated: boolean;
            /** @description Present exactly when isTruncated */
            continuationToken?: string;
        };
        StowageFileContent: {
            /** @description The file, base64-encoded */
            content: string;
            /** @description Media type, e.g. text/markdown */
            contentType: string;
        };
        StowageFileUpload: {
            /** @description The file, standard base64 with padding */
            content: string;
            /** @description Media type, e.g. text/markdown; application/octet-stream when absent */
            contentType?: string;
        };
        StowageFileWritten: {
            key: string;
            size: number;
            contentType: string;
            /** Format: date-time */
            lastModified: string;
            /** @description Strong validator of the content, quoted, as in the ETag header */
            etag: string;
        };
        StowageStorageLocation: {
            userId: string;
            bucket: string;
            region: string;
            /** @description users/{userId}/<root>/ */
            prefix: string;
        };
        StowageTokenSet: {
            accessToken: string;
            idToken: string;
            /** @description Present when the provider issued or rotated the refresh token: keep this one */
            refreshToken?: string;
            /** @description Seconds the access token lives */
            expiresIn?: number;
            /** @description Temporary AWS credentials, allowed S3 only under your own prefix; present when the deployment hands them out (CREDENTIALS_ROLE_ARN) */
            credentials?: {
                accessKeyId: string;
                secretAccessKey: string;
                sessionToken: string;
                /**
                 * Format: date-time
                 * @description CREDENTIALS_TTL_SECONDS (1 hour) after issue
                 */
                expiration: string;
            };
        };
        StowageDeviceAuthorization: {
            deviceCode: string;
            /** @description What the person types at verificationUri */
            userCode: string;
            verificationUri: string;
            /** @description verificationUri with the code in it */
            verificationUriComplete?: string;
            expiresIn: number;
            /** @description Seconds to wait between two POST /api/auth/token */
            interval: number;
        };
        StowageProtectedResource: {
            resource: string;
            authorization_servers: string[];
            bearer_methods_supported: string[];
            scopes_supported: string[];
            /** @description The client to name in the authorization request */
            client_id?: string;
        } & {
            [key: string]: unknown;
        };
        StowageHealth: {
            status: "ok" | "unavailable";
            /** @description Present when a check fails */
            error?: string;
            /** @description Each readiness check; empty for the liveness probe */
            checks: {
                database?: "ok" | "failing";
                storage?: "ok" | "failing";
            };
        };
        /** @description Both fields are optional, and so is the body itself */
        StowageKeyRequest: {
            /** @description A label for you; not secret; no control characters */
            name?: string;
            /**
             * Format: date-time
             * @description When the key stops working; never when absent
             */
            expiresAt?: string;
        };
        StowageCreatedKey: {
            id: string;
            /** @description The key itself: shown this once, never again */
            key: string;
            name: string;
            /** @description Prefix and id: enough to recognise the key, useless to use it */
            start: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string | null;
        };
        StowageKeySummary: {
            id: string;
            name: string;
            start: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            lastUsedAt: string | null;
            /** Format: date-time */
            expiresAt: string | null;
        };
        StowageKeyList: {
            keys: components["schemas"]["StowageKeySummary"][];
        };
        StowageCreateLink: {
            /** @description The file, under the same rules as the file routes */
            path: string;
            /** @description `download` (GET, HEAD, ranges) or `upload` (PUT) */
            method: "download" | "upload";
            /** @description Seconds the link works for: 3600 by default, at most LINK_MAX_SECONDS */
            expiresIn?: number;
            /** @description An upload link: the Content-Type the upload must send (application/octet-stream by default) */
            contentType?: string;
            /** @description An upload link: the exact length the upload must have */
            size?: number;
            transform?: components["schemas"]["StowageImageTransform"];
        };
        StowageCreatedLink: {
            /** @description Works without Authorization, for this file and method only, until expiresAt */
            url: string;
            /** @description `download` (GET, HEAD, ranges) or `upload` (PUT) */
            method: "download" | "upload";
            /** Format: date-time */
            expiresAt: string;
        };
        StowageTransfer: {
            /** @description A file's path, or a folder's ending in "/" (every file under it) */
            from: string;
            /** @description The destination path; for a folder, a folder ending in "/" (or "" for your root) */
            to: string;
        };
        StowageFolderTransferred: {
            /** @description Files copied or moved by this request */
            files: number;
            /** @description Their bytes */
            bytes: number;
            /** @description The request stopped at its time budget: send it again to go on */
            isTruncated: boolean;
        };
        StowageArchiveSelection: {
            /** @description The folder the names are in (ending in "/"), or "" for your root */
            prefix: string;
            /** @description Files and folders in it (a folder's name ends in "/"): each is zipped under its name, a folder with everything under it */
            names: string[];
        };
        StowageFolderBody: {
            /** @description The folder to make, with or without its trailing "/" */
            path: string;
        };
        StowageFolderMade: {
            /** @description The folder, ending in "/" */
            path: string;
        };
        StowageTrashItem: {
            /** @description The item's own id, for restore and purge */
            id: string;
            /** @description Where the file was */
            key: string;
            size: number;
            etag: string;
            /** Format: date-time */
            deletedAt: string;
            /**
             * Format: date-time
             * @description When it is purged for good
             */
            expiresAt: string;
        };
        StowageTrashList: {
            /** @description Newest first */
            items: components["schemas"]["StowageTrashItem"][];
            isTruncated: boolean;
            /** @description Present exactly when isTruncated */
            continuationToken?: string;
        };
        StowageRestore: {
            /** @description Where to put it back; its own path when absent */
            to?: string;
        };
        StowageVersion: {
            /** @description The version's own id, for download, restore and removal */
            id: string;
            size: number;
            etag: string;
            contentType: string;
            /**
             * Format: date-time
             * @description When this content was written
             */
            lastModified: string;
        };
        StowageVersionList: {
            /** @description Newest first; the current file is not among them */
            versions: components["schemas"]["StowageVersion"][];
            isTruncated: boolean;
            /** @description Present exactly when isTruncated */
            continuationToken?: string;
        };
        StowageChange: {
            /** @description put: made or replaced (restores included); move: one per file, with `from`; share: a share received, renamed or changed, mounted at `key`; unshare: the mount at `key` is gone */
            op: "put" | "delete" | "move" | "folder" | "folder-delete" | "share" | "unshare";
            /** @description The path (a folder's ends in "/") */
            key: string;
            /** @description A move's source */
            from?: string;
            size?: number;
            etag?: string;
            contentType?: string;
            /** Format: date-time */
            at: string;
        };
        StowageChangeList: {
            /** @description Oldest first */
            changes: components["schemas"]["StowageChange"][];
            /** @description Where to go on from: send it back as `cursor` */
            cursor: string;
            /** @description More changes follow at once: ask again with `cursor` */
            hasMore: boolean;
        };
        StowageChangeCursor: {
            /** @description The journal's position now */
            cursor: string;
        };
        StowageWebhookBody: {
            /** @description Where deliveries are POSTed: http or https, to a host that is not a loopback, private or link-local address */
            url: string;
            /** @description Only changes under this prefix (a move counts for both of its paths); all by default */
            prefix?: string;
        };
        StowageWebhookMade: {
            id: string;
            url: string;
            prefix: string;
            /** Format: date-time */
            createdAt: string;
            /** @description whsec_…: the key of the deliveries' signatures (Standard Webhooks). Shown this once */
            secret: string;
        };
        StowageWebhookList: {
            webhooks: {
                id: string;
                url: string;
                prefix: string;
                /** Format: date-time */
                createdAt: string;
                /** @description A delivery failed its last retry: nothing more is sent; delete it and make it again */
                disabled: boolean;
            }[];
        };
        StowageDeliveryList: {
            /** @description Newest first */
            deliveries: {
                /** @description The webhook-id header of its attempts */
                id: string;
                /** @description The event type its POST says: file.put, file.delete, file.move, folder.create, folder.delete */
                type: string;
                /** @description The journal's op of the change (put, delete, move, folder, folder-delete) */
                op: string;
                key: string;
                status: "pending" | "delivered" | "failed";
                attempts: number;
                lastError?: string;
                /** Format: date-time */
                nextAttemptAt?: string;
                /** Format: date-time */
                deliveredAt?: string;
            }[];
        };
        StowageS3CredentialBody: {
            /** @description What it is for, to tell it apart */
            name?: string;
            /** @description Its deletes are final rather than to the trash: for backup tools (restic) that make and delete lock files often */
            skipTrash?: boolean;
        };
        StowageS3CredentialMade: {
            accessKeyId: string;
            /** @description Shown this once */
            secretAccessKey: string;
            name: string;
            skipTrash: boolean;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description Made with an API key that expires: it expires with it (and is revoked with it)
             */
            expiresAt?: string;
        };
        StowageS3CredentialList: {
            credentials: {
                accessKeyId: string;
                name: string;
                skipTrash: boolean;
                /** Format: date-time */
                createdAt: string;
                /**
                 * Format: date-time
                 * @description To the minute
                 */
                lastUsedAt: string | null;
            }[];
        };
        StowageS3Session: {
            accessKeyId: string;
            secretAccessKey: string;
            sessionToken: string;
            /** Format: date-time */
            expiration: string;
        };
        StowageUsage: {
            /** @description fileBytes + trashBytes + versionBytes + uploadBytes: what counts against the quota */
            usedBytes: number;
            /** @description Your quota (yours, your organization's or QUOTA_BYTES); null when none applies */
            quotaBytes: number | null;
            fileBytes: number;
            /** @description Deleted files, until they are purged */
            trashBytes: number;
            /** @description Replaced files kept as versions; the oldest go first when a write needs room */
            versionBytes: number;
            /** @description The declared length of your unfinished resumable uploads */
            uploadBytes: number;
            fileCount: number;
        };
        StowagePerson: {
            userId: string;
            /** @description From the identity provider's `email` claim, or set by `stowage admin person` */
            email?: string;
            /** @description From the `name` claim (else `preferred_username`), or set by `stowage admin person` */
            name?: string;
        };
        StowageMe: {
            userId: string;
            /** @description Your organization; people share within it */
            orgId: string | null;
            email?: string;
            name?: string;
        };
        StowagePeople: {
            /** @description At most 20, you left out */
            people: components["schemas"]["StowagePerson"][];
        };
        StowageShare: {
            id: string;
            /** @description Your file, or your folder ending in "/"; it follows the file or folder when you move it */
            path: string;
            with: {
                userId: string;
                email?: string;
                name?: string;
            } | {
                /** @enum {boolean} */
                org: true;
            };
            /** @description viewer: read; editor: read and write, under your rules (your quota, versions, trash) */
            role: "viewer" | "editor";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt?: string;
        };
        StowageShares: {
            shares: components["schemas"]["StowageShare"][];
        };
        StowageReceivedShare: {
            /** @description The share's id, as its owner sees it too */
            id: string;
            /** @description Where it is mounted: the top of your files, under this name */
            name: string;
            owner: {
                userId: string;
                email?: string;
                name?: string;
            };
            /** @description viewer: read; editor: read and write, under your rules (your quota, versions, trash) */
            role: "viewer" | "editor";
            kind: "folder" | "file";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt?: string;
        };
        StowageReceivedShares: {
            shares: components["schemas"]["StowageReceivedShare"][];
        };
        /** @description A download link of an image: the image transformed, as GET /api/images/{path} sends it */
        StowageImageTransform: {
            /** @description The box's width in pixels, 1–2500 */
            width?: number;
            /** @description The box's height in pixels, 1–2500 */
            height?: number;
            /**
             * @description `inside` (the default): the whole image within the box, never enlarged; `cover`: the box filled, the image cropped; `contain`: the box filled, the image letterboxed
             * @enum {string}
             */
            fit?: "cover" | "contain" | "inside";
            /**
             * @description The format sent: the source's by default (GIF and TIFF are sent as PNG)
             * @enum {string}
             */
            format?: "webp" | "avif" | "jpeg" | "png";
            /** @description JPEG, WebP and AVIF: 1–100 (the encoder's default when absent) */
            quality?: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: {
                /** @description ready (default): the database and the file store; live: the process only */
                probe?: "ready" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready (or, for ?probe=live, alive) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageHealth"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not ready: the failing check is named */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageHealth"];
                };
            };
        };
    };
    getProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The resource and its authorization server */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageProtectedResource"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    exchangeToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The authorization code the provider redirected with */
                    code: string;
                    /** @description The PKCE (S256) verifier of the authorization request */
                    codeVerifier: string;
                    /** @description The redirect URI of the authorization request: loopback, or the console under PUBLIC_URL */
                    redirectUri: string;
                } | {
                    /** @description The device code POST /api/auth/device answered */
                    deviceCode: string;
                };
            };
        };
        responses: {
            /** @description Tokens, the refresh token to keep, and AWS credentials for your prefix when the deployment hands them out */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageTokenSet"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The identity provider or STS answered with an error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    startDeviceSignIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The codes and where to use them */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageDeviceAuthorization"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The identity provider or STS answered with an error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A refresh token of the identity provider */
                    refreshToken: string;
                };
            };
        };
        responses: {
            /** @description Revoked, or the provider cannot revoke */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The identity provider or STS answered with an error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    refreshTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A refresh token of the identity provider */
                    refreshToken: string;
                };
            };
        };
        responses: {
            /** @description Fresh tokens, and AWS credentials for your prefix when the deployment hands them out */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageTokenSet"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The identity provider or STS answered with an error */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    getStorageLocation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Your bucket, region and prefix */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageStorageLocation"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listFiles: {
        parameters: {
            query?: {
                /** @description Only files whose path starts with this */
                prefix?: string;
                /** @description From the previous page */
                continuationToken?: string;
                /** @description `/` lists one level: the files directly under `prefix`, and the folders below it once each in `folders` */
                delimiter?: "/";
                /** @description With delimiter=/: the order of the whole folder, not of a page. `name` (the default) ascending is key order, files and folders together; any other sort or order gives the folders first, by name, then the files */
                sort?: "name" | "size" | "lastModified";
                /** @description `asc` (the default) or `desc` */
                order?: "asc" | "desc";
                /** @description With delimiter=/: `first` gives the folders first in the name order too, as a file browser shows them */
                folders?: "first";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of your files, in key order or the order asked for */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileList"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    searchFiles: {
        parameters: {
            query: {
                /** @description Text to find in your files' paths, in any case: 2 characters at least */
                q: string;
                /** @description Only files whose path starts with this */
                prefix?: string;
                /** @description By path (the default), or newest first */
                sort?: "name" | "newest";
                /** @description From the previous page */
                continuationToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the files found */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileList"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    getFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your copy's ETag (or a list, or *): 304 if the file still has it */
                "if-none-match"?: string;
                /** @description An HTTP date: 304 if the file has not changed since (ignored with If-None-Match) */
                "if-modified-since"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, base64-encoded, and its media type */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileContent"];
                };
            };
            /** @description Your copy is current (If-None-Match / If-Modified-Since) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    putFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the file only if its ETag is this one (or one of a list); * for "only if it exists" */
                "if-match"?: string;
                /** @description * to create the file only if it does not exist yet */
                "if-none-match"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StowageFileUpload"];
            };
        };
        responses: {
            /** @description Written whole: what is stored now */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileWritten"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The file is larger than the service accepts (MAX_FILE_BYTES; MAX_UPLOAD_BYTES for streamed uploads) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Your usage would pass your quota (files, trash and unfinished uploads), or, in what is shared with you, its owner's; `error` says whose, the usage and the quota. Nothing was stored */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    deleteFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the file only if its ETag is this one (or one of a list); * for "only if it exists" */
                "if-match"?: string;
                /** @description * to create the file only if it does not exist yet */
                "if-none-match"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted: in the trash, unless TRASH_RETENTION_DAYS is 0 */
            204: {
                headers: {
                    /** @description The deleted file's trash item: POST /api/trash/{id}/restore puts it back. Absent when TRASH_RETENTION_DAYS is 0 */
                    "Stowage-Trash-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    downloadFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your copy's ETag (or a list, or *): 304 if the file still has it */
                "if-none-match"?: string;
                /** @description An HTTP date: 304 if the file has not changed since (ignored with If-None-Match) */
                "if-modified-since"?: string;
                /** @description One range of bytes: bytes=a-b, bytes=a- or bytes=-n (several ranges are answered 200 whole) */
                range?: string;
                /** @description An ETag or date: the range is sent only if the file still matches it, else the whole file */
                "if-range"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description The range asked for */
            206: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    /** @description `bytes <first>-<last>/<size>` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Your copy is current (If-None-Match / If-Modified-Since) */
            304: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The range starts past the end of the file */
            416: {
                headers: {
                    /** @description `bytes *\/<size>` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    uploadFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the file only if its ETag is this one (or one of a list); * for "only if it exists" */
                "if-match"?: string;
                /** @description * to create the file only if it does not exist yet */
                "if-none-match"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description Written whole: what is stored now */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileWritten"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The file is larger than the service accepts (MAX_FILE_BYTES; MAX_UPLOAD_BYTES for streamed uploads) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Your usage would pass your quota (files, trash and unfinished uploads), or, in what is shared with you, its owner's; `error` says whose, the usage and the quota. Nothing was stored */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    removeFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the file only if its ETag is this one (or one of a list); * for "only if it exists" */
                "if-match"?: string;
                /** @description * to create the file only if it does not exist yet */
                "if-none-match"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted: in the trash, unless TRASH_RETENTION_DAYS is 0 */
            204: {
                headers: {
                    /** @description The deleted file's trash item: POST /api/trash/{id}/restore puts it back. Absent when TRASH_RETENTION_DAYS is 0 */
                    "Stowage-Trash-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    describeFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your copy's ETag (or a list, or *): 304 if the file still has it */
                "if-none-match"?: string;
                /** @description An HTTP date: 304 if the file has not changed since (ignored with If-None-Match) */
                "if-modified-since"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file exists */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Your copy is current (If-None-Match / If-Modified-Since) */
            304: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    createLink: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StowageCreateLink"];
            };
        };
        responses: {
            /** @description The link */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageCreatedLink"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Your keys that are neither revoked nor expired, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageKeyList"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["StowageKeyRequest"];
            };
        };
        responses: {
            /** @description The new key: `key` is shown this once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageCreatedKey"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The id of a key (its `start` without the prefix) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked, with every key created with it */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    copyFiles: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the file only if its ETag is this one (or one of a list); * for "only if it exists" */
                "if-match"?: string;
                /** @description * to create the file only if it does not exist yet */
                "if-none-match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StowageTransfer"];
            };
        };
        responses: {
            /** @description A file: the destination as it is stored now. A folder: what was copied */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileWritten"] | components["schemas"]["StowageFolderTransferred"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A conflict with what is there: the destination is the source or inside the folder moved or copied, a file has the folder's name, or the folder is not empty */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Your usage would pass your quota (files, trash and unfinished uploads), or, in what is shared with you, its owner's; `error` says whose, the usage and the quota. Nothing was stored */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    moveFiles: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the file only if its ETag is this one (or one of a list); * for "only if it exists" */
                "if-match"?: string;
                /** @description * to create the file only if it does not exist yet */
                "if-none-match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StowageTransfer"];
            };
        };
        responses: {
            /** @description A file: the destination as it is stored now. A folder: what was moved */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileWritten"] | components["schemas"]["StowageFolderTransferred"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A conflict with what is there: the destination is the source or inside the folder moved or copied, a file has the folder's name, or the folder is not empty */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Your usage would pass your quota (files, trash and unfinished uploads), or, in what is shared with you, its owner's; `error` says whose, the usage and the quota. Nothing was stored */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    downloadArchive: {
        parameters: {
            query: {
                /** @description The folder to zip (ending in "/"), or any prefix; "" for every file */
                prefix: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The zip */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    downloadSelection: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StowageArchiveSelection"];
            };
        };
        responses: {
            /** @description The zip */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/zip": string;
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    makeFolder: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StowageFolderBody"];
            };
        };
        responses: {
            /** @description The folder exists */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFolderMade"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A conflict with what is there: the destination is the source or inside the folder moved or copied, a file has the folder's name, or the folder is not empty */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    removeFolder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The folder's path, with or without its trailing "/" */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A conflict with what is there: the destination is the source or inside the folder moved or copied, a file has the folder's name, or the folder is not empty */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listTrash: {
        parameters: {
            query?: {
                /** @description From the previous page */
                continuationToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of your trash */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageTrashList"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    emptyTrash: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Emptied */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    restoreFromTrash: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A trash item's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["StowageRestore"];
            };
        };
        responses: {
            /** @description Restored: the file as it is stored now */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileWritten"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    purgeFromTrash: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A trash item's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Purged */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listVersions: {
        parameters: {
            query: {
                /** @description The file whose earlier versions are listed */
                path: string;
                /** @description From the previous page */
                continuationToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the file's versions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageVersionList"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    downloadVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your copy's ETag (or a list, or *): 304 if the file still has it */
                "if-none-match"?: string;
                /** @description An HTTP date: 304 if the file has not changed since (ignored with If-None-Match) */
                "if-modified-since"?: string;
                /** @description One range of bytes: bytes=a-b, bytes=a- or bytes=-n (several ranges are answered 200 whole) */
                range?: string;
                /** @description An ETag or date: the range is sent only if the file still matches it, else the whole file */
                "if-range"?: string;
            };
            path: {
                /** @description A version's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description The range asked for */
            206: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    /** @description `bytes <first>-<last>/<size>` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Your copy is current (If-None-Match / If-Modified-Since) */
            304: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    /** @description When the file was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Always `bytes` */
                    "Accept-Ranges"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The range starts past the end of the file */
            416: {
                headers: {
                    /** @description `bytes *\/<size>` */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    removeVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A version's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    restoreVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the file only if its ETag is this one (or one of a list); * for "only if it exists" */
                "if-match"?: string;
                /** @description * to create the file only if it does not exist yet */
                "if-none-match"?: string;
            };
            path: {
                /** @description A version's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["StowageRestore"];
            };
        };
        responses: {
            /** @description Restored: the file as it is stored now */
            200: {
                headers: {
                    /** @description Strong validator of the content: send it back in If-Match, If-None-Match or If-Range */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageFileWritten"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description If-Match or If-None-Match does not hold: nothing was changed */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Your usage would pass your quota (files, trash and unfinished uploads), or, in what is shared with you, its owner's; `error` says whose, the usage and the quota. Nothing was stored */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    latestChange: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The position */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageChangeCursor"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listChanges: {
        parameters: {
            query: {
                /** @description From GET /api/changes/latest or the previous answer */
                cursor: string;
                /** @description Only changes under this prefix (a move counts for both of its paths) */
                prefix?: string;
                /** @description Seconds (0–300) to hold the request until a change exists; then `changes: []` and the same cursor */
                wait?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageChangeList"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The cursor is older than the change journal keeps (`code: reset`): list again */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Your webhooks, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageWebhookList"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StowageWebhookBody"];
            };
        };
        responses: {
            /** @description Made; its secret is shown this once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageWebhookMade"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageDeliveryList"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listS3Credentials: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageS3CredentialList"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    createS3Credential: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["StowageS3CredentialBody"];
            };
        };
        responses: {
            /** @description Made */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageS3CredentialMade"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    revokeS3Credential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                accessKeyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    createS3Session: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Temporary credentials */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageS3Session"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Bytes you store, by kind, and your quota */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageUsage"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Your id, organization, and what your sign-in names you */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageMe"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    findPeople: {
        parameters: {
            query: {
                /** @description The start of a person's email or name, in any case: 2 characters at least */
                q: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description At most 20 people, you left out */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowagePeople"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listShares: {
        parameters: {
            query?: {
                /** @description Only shares at or under this path */
                path?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Your shares */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageShares"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    share: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Your file or folder (a folder with or without its trailing "/") */
                    path: string;
                    /** @description A person, by id or email, or everyone of your organization */
                    with: {
                        userId: string;
                    } | {
                        email: string;
                    } | {
                        /** @enum {boolean} */
                        org: true;
                    };
                    /** @description viewer: read; editor: read and write, under your rules (your quota, versions, trash) */
                    role: "viewer" | "editor";
                    /** @description A time to come, as 2027-01-31T12:00:00Z */
                    expiresAt?: string;
                };
            };
        };
        responses: {
            /** @description Shared */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageShare"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not yours to do: what is shared with you as a viewer cannot be changed, and nothing shared with you can be shared further or linked; `error` says which. Nothing was changed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A conflict with what is there: the destination is the source or inside the folder moved or copied, a file has the folder's name, or the folder is not empty */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    unshare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ended: the grantee has no access from now on */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    changeShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description viewer: read; editor: read and write, under your rules (your quota, versions, trash) */
                    role?: "viewer" | "editor";
                    /** @description null: it no longer expires */
                    expiresAt?: string | (never | null);
                };
            };
        };
        responses: {
            /** @description The share as it is now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageShare"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    listReceivedShares: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Shared with you */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageReceivedShares"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    leaveShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Left: it is no longer in your files */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    renameMount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The mount's new name at the top of your files */
                    name: string;
                };
            };
        };
        responses: {
            /** @description The share as you see it now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageReceivedShare"];
                };
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A conflict with what is there: the destination is the source or inside the folder moved or copied, a file has the folder's name, or the folder is not empty */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
    transformImage: {
        parameters: {
            query?: {
                /** @description The box's width in pixels, 1–2500 */
                width?: string;
                /** @description The box's height in pixels, 1–2500 */
                height?: string;
                /** @description `inside` (the default): the whole image within the box, never enlarged; `cover`: the box filled, the image cropped; `contain`: the box filled, the image letterboxed */
                fit?: "cover" | "contain" | "inside";
                /** @description The format sent: the source's by default (GIF and TIFF are sent as PNG) */
                format?: "webp" | "avif" | "jpeg" | "png";
                /** @description JPEG, WebP and AVIF: 1–100 (the encoder's default when absent) */
                quality?: string;
            };
            header?: {
                /** @description Your copy's ETag (or a list, or *): 304 if the file still has it */
                "if-none-match"?: string;
                /** @description An HTTP date: 304 if the file has not changed since (ignored with If-None-Match) */
                "if-modified-since"?: string;
            };
            path: {
                /** @description Path of the file relative to your root, percent-encoded once; "/" separates folders */
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image */
            200: {
                headers: {
                    /** @description The source's ETag and the transform's: send it back in If-None-Match */
                    ETag?: string;
                    /** @description When the source was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "image/*": string;
                };
            };
            /** @description Your copy is current (If-None-Match / If-Modified-Since) */
            304: {
                headers: {
                    /** @description The source's ETag and the transform's: send it back in If-None-Match */
                    ETag?: string;
                    /** @description When the source was last written, as an HTTP date */
                    "Last-Modified"?: string;
                    /** @description Bytes in the body */
                    "Content-Length"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed; `error` says how */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description No credentials, or none that any method accepts (the same answer whichever failed) */
            401: {
                headers: {
                    /** @description `Bearer`, with `resource_metadata="<URL of /.well-known/oauth-protected-resource>"` when an identity provider is configured */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Not found, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The body is not application/json; for an image route, the file is not an image it reads (JPEG, PNG, WebP, AVIF, GIF, TIFF) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description The image has more pixels than IMAGE_MAX_PIXELS, or its file is larger than 64 MiB: it is not decoded */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description Too many failed authentications from this address or for this key id */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
            /** @description A service it needs is down or too slow, or too many uploads or image transforms are in progress; retry after Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StowageError"];
                };
            };
        };
    };
}
