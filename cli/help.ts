export const ADMIN_HELP = `Admin commands work on DATABASE_URL directly and print JSON (--json is accepted);
a SQLite database that does not exist yet is created only with --init:
  stowage admin create-org --name N [--aws-account-id A] [--auth-mode platform|aws-sso] [--init]
  stowage admin create-key --user U [--org O] [--name N] [--init]
  stowage admin person --user U [--email E] [--name N] [--org O]
                          a person's email, name and organization, as shares find them (for people
                          who use API keys only: a sign-in's claims set them for the others)
  stowage admin set-quota --user U | --org O --bytes N | --none
                          a user's own quota, else the organization's, else QUOTA_BYTES
  stowage admin reindex [--user U]
                          compares the index of names with the store, every user's or U's, mends
                          it where they differ and reports what differed
  stowage admin usage [--recount]
                          every user's usage and the quotas set; --recount rebuilds usage from
                          the store and the database first (best while few writes run)
`

/** The lines of HELP (and ADMIN_HELP) about one command: its usage lines and what follows them. */
export function helpOf (command: string): string | undefined {
  const page = command === 'admin' ? ADMIN_HELP : HELP
  const lines = page.split('\n')
  const picked: string[] = []
  let taking = false
  for (const line of lines) {
    const usage = /^ {2}stowage (\S+)/.exec(line)
    if (usage) taking = usage[1] === command
    else if (!/^ {3,}/.test(line)) taking = false
    if (taking) picked.push(line)
  }
  return picked.length > 0 ? `${picked.join('\n')}\n` : undefined
}

export const HELP = `stowage — command-line client and admin tool of a Stowage service

Usage:
  stowage login --url URL [--no-browser | --device]
                                              signs in through the service's identity provider: a
                                              browser on this machine (the URL is printed too), or
                                              with --device a code to enter on any other device
  stowage login --url URL --api-key KEY
  stowage login --url URL --aws-sso --server-id ID [--sts-region R] [--sts-endpoint URL]
  stowage ls [PREFIX] [--long] [--one-level]  every page of your files (--long: with ETags;
                                              --one-level: only PREFIX's own files, and its
                                              folders once each, as PRE lines)
  stowage find TEXT [PREFIX] [--newest]       your files whose path holds TEXT, in any case (under
                                              PREFIX when given), by path or newest first
  stowage get PATH [-o FILE]                  streamed to standard output unless -o; with -o, an
                                              interrupted download continues when run again
  stowage get PATH --width N [--height N] [--format webp|avif|jpeg|png] [-o FILE]
                                              an image resized (within the box) or converted by
                                              the server, in place of the file
  stowage put FILE PATH [--content-type T] [--if-match ETAG | --no-clobber]
                                              streamed; --if-match writes only over that version,
                                              --no-clobber only if PATH does not exist yet; from
                                              64 MiB ($STOWAGE_RESUMABLE_BYTES) in resumable pieces:
                                              run it again after an interruption to go on
  stowage rm PATH                             to the service's trash, unless it keeps none
  stowage cp FROM TO | mv FROM TO [--if-match ETAG] [--no-clobber]
                                              copied or moved by the service, no byte downloaded;
                                              a FROM ending in "/" is a folder, TO then one too;
                                              --if-match names FROM's version, --no-clobber keeps
                                              files already at TO (412)
  stowage trash [ls] | trash restore ID [--to PATH] | trash rm ID | trash empty
                                              deleted files, kept TRASH_RETENTION_DAYS (30): list,
                                              put one back (where it was, or at PATH), purge
  stowage mkdir PATH | rmdir PATH              a folder that stays while empty; rmdir removes an
                                              empty one
  stowage versions PATH | versions get ID [-o FILE] | versions restore ID [--to PATH] | versions rm ID
                                              earlier versions of PATH, kept VERSION_RETENTION_DAYS
                                              (30, thinned): list, read, make one the file again
                                              (the file it replaces becomes a version), remove
  stowage changes [--cursor C] [--prefix P] [--follow] [--json]
                                              your files' changes after the cursor (from now without
                                              one), a line each, then the cursor to go on from;
                                              --follow keeps waiting for more until stopped;
                                              --json: a JSON line per change
  stowage sync LOCAL_DIR PREFIX | sync PREFIX LOCAL_DIR [--delete] [--dry-run] [--concurrency N] [--watch] [--resolve here|server|both]
                                              copies what is new or changed, the folder here being
                                              the source when it comes first; a file changed on
                                              both sides since the last sync is a conflict, left
                                              alone and reported (exit 1); a file it replaces on
                                              the server is kept as a version, and it says so;
                                              --watch keeps both in step both ways until stopped:
                                              each change here (once left alone for a second) goes
                                              up, each change on the server comes down within
                                              seconds; with --delete, only what was deleted on one
                                              side since the last sync is deleted on the other,
                                              never what is new there; --resolve settles conflicts:
                                              here sends this side's, server fetches the server's,
                                              both keeps both (the server's as "name (server).ext")
  stowage share PATH [--expires 1h] [--upload [--content-type T]]
                                              prints a link that needs no credentials until it
                                              expires: to download PATH, or with --upload to write it
  stowage shares add PATH --with EMAIL|USERID|--org [--role viewer|editor] [--expires WHEN]
                                              shares your file or folder with a person or your
                                              organization (viewer: read; editor: read and write)
  stowage shares ls [PATH] | shares rm ID     what you share, by path; ends a share
  stowage shared | shared rename ID NAME | shared leave ID
                                              what others share with you, at the top of your files
  stowage keys create [--name N] [--expires DATE] | keys ls | keys revoke ID
  stowage s3-credentials create [--name N] [--skip-trash] | s3-credentials ls | s3-credentials revoke ACCESS_KEY_ID
                                              access keys for the S3 endpoint (the secret is shown once);
                                              --skip-trash: their deletes are final (for restic)
  stowage s3 credentials                      temporary S3 credentials, in credential_process's format
  stowage s3 profile --endpoint URL [--name N] [--region R]
                                              an AWS config profile and an rclone remote that use them
  stowage whoami                              who you are, and how you signed in
  stowage logout                              revokes the sign-in and forgets the settings
  stowage aws-credentials                     temporary AWS credentials for your own prefix, in the
                                              AWS CLI's credential_process format
  stowage serve                               the service, configured as npm start is
  stowage help | --version

  --json gives machine-readable output. put and get show a progress line when stderr is a terminal. Settings live in $STOWAGE_CONFIG, else
  $XDG_CONFIG_HOME/stowage/config.json, else ~/.config/stowage/config.json (mode 0600).
  In aws-sso mode every request is signed with the AWS default credential chain; missing or
  expired credentials are an error, never a fallback to an API key.

${ADMIN_HELP}`
