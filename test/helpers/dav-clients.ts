// What macOS Finder (WebDAVFS 3) and the Windows mini-redirector send when they mount a folder, copy
// a file in, rename it and delete it: written down from their published traces (sabre/dav's and
// Nextcloud's notes on client quirks, Apple's webdavfs sources, Microsoft's MS-WDV), replayed
// request by request against the service by the tests.

export interface DavStep {
  method: string
  /** Below /dav/. */
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** The statuses the client goes on after. */
  expect: number[]
}

const PROPFIND_FINDER = '<?xml version="1.0" encoding="utf-8"?>\n<D:propfind xmlns:D="DAV:"><D:prop><D:getlastmodified/><D:getcontentlength/><D:creationdate/><D:resourcetype/></D:prop></D:propfind>'
const QUOTA_FINDER = '<?xml version="1.0" encoding="utf-8"?>\n<D:propfind xmlns:D="DAV:"><D:prop><D:quota-available-bytes/><D:quota-used-bytes/><D:quota/><D:quotaused/></D:prop></D:propfind>'
const LOCK_FINDER = '<?xml version="1.0" encoding="utf-8"?>\n<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner><D:href>http://www.apple.com/webdav_fs/</D:href></D:owner></D:lockinfo>'

/** Finder: mount (OPTIONS, PROPFINDs, AppleDouble probes), copy `name` in (an empty PUT, LOCK, the PUT under the lock, its ._ file, UNLOCK), rename it to `renamed`, delete it. */
export function finderSequence (name: string, renamed: string, content: Buffer): DavStep[] {
  const agent = { 'user-agent': 'WebDAVFS/3.0.0 (03008000) Darwin/22.1.0 (arm64)' }
  const finder = (step: DavStep): DavStep => ({ ...step, headers: { ...agent, ...step.headers } })
  const steps: DavStep[] = [
    { method: 'OPTIONS', path: '', expect: [200] },
    { method: 'PROPFIND', path: '', headers: { depth: '0', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [207] },
    { method: 'PROPFIND', path: '', headers: { depth: '0', 'content-type': 'text/xml' }, body: QUOTA_FINDER, expect: [207] },
    { method: 'PROPFIND', path: '', headers: { depth: '1', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [207] },
    { method: 'PROPFIND', path: '._.', headers: { depth: '0', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [404] },
    { method: 'PROPFIND', path: '.DS_Store', headers: { depth: '0', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [404] },
    { method: 'PROPFIND', path: name, headers: { depth: '0', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [404] },
    // Copying in: the file made empty, locked, then written under the lock, chunked.
    { method: 'PUT', path: name, headers: { 'content-length': '0' }, body: '', expect: [201] },
    { method: 'LOCK', path: name, headers: { depth: '0', timeout: 'Second-600', 'content-type': 'text/xml' }, body: LOCK_FINDER, expect: [200] },
    { method: 'PUT', path: name, headers: { if: '(<{token}>)', 'x-expected-entity-length': String(content.length), 'transfer-encoding': 'chunked' }, body: content, expect: [204] },
    { method: 'PROPFIND', path: name, headers: { depth: '0', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [207] },
    { method: 'PROPFIND', path: `._${name}`, headers: { depth: '0', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [404] },
    { method: 'PUT', path: `._${name}`, headers: { 'content-length': '0' }, body: '', expect: [201] },
    { method: 'PUT', path: `._${name}`, headers: { 'transfer-encoding': 'chunked' }, body: Buffer.alloc(4096, 0), expect: [204] },
    { method: 'UNLOCK', path: name, headers: { 'lock-token': '<{token}>' }, expect: [204] },
    // Renaming, then deleting (Finder deletes on a network volume at once).
    { method: 'MOVE', path: name, headers: { destination: `{origin}/dav/${encodeURIComponent(renamed)}` }, expect: [201] },
    { method: 'MOVE', path: `._${name}`, headers: { destination: `{origin}/dav/._${encodeURIComponent(renamed)}` }, expect: [201] },
    { method: 'PROPFIND', path: renamed, headers: { depth: '0', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [207] },
    { method: 'DELETE', path: renamed, expect: [204] },
    { method: 'DELETE', path: `._${renamed}`, expect: [204] },
    { method: 'PROPFIND', path: '', headers: { depth: '1', 'content-type': 'text/xml' }, body: PROPFIND_FINDER, expect: [207] }
  ]
  return steps.map(finder)
}

const PROPFIND_WINDOWS = '<?xml version="1.0" encoding="utf-8" ?><D:propfind xmlns:D="DAV:"><D:prop><D:creationdate/><D:displayname/><D:getcontentlength/><D:getcontenttype/><D:getetag/><D:getlastmodified/><D:resourcetype/></D:prop></D:propfind>'
const LOCK_WINDOWS = '<?xml version="1.0" encoding="utf-8" ?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner><D:href>DESKTOP-1\\alice</D:href></D:owner></D:lockinfo>'
const WIN32_TIMES = '<?xml version="1.0" encoding="utf-8" ?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop>' +
  '<Z:Win32CreationTime>Wed, 25 Nov 2026 09:00:00 GMT</Z:Win32CreationTime><Z:Win32LastAccessTime>Wed, 25 Nov 2026 09:00:00 GMT</Z:Win32LastAccessTime>' +
  '<Z:Win32LastModifiedTime>Wed, 25 Nov 2026 09:00:00 GMT</Z:Win32LastModifiedTime><Z:Win32FileAttributes>00000020</Z:Win32FileAttributes></D:prop></D:set></D:propertyupdate>'

/** The Windows mini-redirector: map the folder (OPTIONS and PROPFIND without a slash), copy `name` in (empty PUT, LOCK, PROPPATCH of Win32 times, PUT, UNLOCK), rename it (Overwrite: F), delete it. */
export function windowsSequence (name: string, renamed: string, content: Buffer): DavStep[] {
  const agent = { 'user-agent': 'Microsoft-WebDAV-MiniRedir/10.0.19045', translate: 'f' }
  const windows = (step: DavStep): DavStep => ({ ...step, headers: { ...agent, ...step.headers } })
  const steps: DavStep[] = [
    { method: 'OPTIONS', path: '', expect: [200] },
    { method: 'PROPFIND', path: '', headers: { depth: '0' }, body: PROPFIND_WINDOWS, expect: [207] },
    { method: 'PROPFIND', path: '', headers: { depth: '1' }, body: PROPFIND_WINDOWS, expect: [207] },
    { method: 'PROPFIND', path: name, headers: { depth: '0' }, body: PROPFIND_WINDOWS, expect: [404] },
    { method: 'PUT', path: name, headers: { 'content-length': '0' }, body: '', expect: [201] },
    { method: 'LOCK', path: name, headers: { timeout: 'Second-3600', 'content-type': 'text/xml; charset="utf-8"' }, body: LOCK_WINDOWS, expect: [200] },
    { method: 'PROPPATCH', path: name, headers: { if: '(<{token}>)', 'content-type': 'text/xml; charset="utf-8"' }, body: WIN32_TIMES, expect: [207] },
    { method: 'PUT', path: name, headers: { if: '(<{token}>)', 'content-length': String(content.length) }, body: content, expect: [204] },
    { method: 'PROPPATCH', path: name, headers: { if: '(<{token}>)', 'content-type': 'text/xml; charset="utf-8"' }, body: WIN32_TIMES, expect: [207] },
    { method: 'UNLOCK', path: name, headers: { 'lock-token': '<{token}>' }, expect: [204] },
    { method: 'PROPFIND', path: name, headers: { depth: '0' }, body: PROPFIND_WINDOWS, expect: [207] },
    { method: 'MOVE', path: name, headers: { destination: `{origin}/dav/${encodeURIComponent(renamed)}`, overwrite: 'F' }, expect: [201] },
    { method: 'PROPFIND', path: renamed, headers: { depth: '0' }, body: PROPFIND_WINDOWS, expect: [207] },
    { method: 'DELETE', path: renamed, expect: [204] }
  ]
  return steps.map(windows)
}
