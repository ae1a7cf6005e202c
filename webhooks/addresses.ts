import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP } from 'node:net'

// Where a webhook may not point (RFC 6890's special-purpose ranges): this host, its networks, link-local
// addresses (cloud metadata services: 169.254.169.254, fd00:ec2::254), shared and reserved space.
const PRIVATE = new BlockList()
for (const [network, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]
] as const) PRIVATE.addSubnet(network, bits, 'ipv4')
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are checked against the IPv4 ranges by BlockList itself.
for (const [network, bits] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['100::', 64], ['2001:db8::', 32]] as const) {
  PRIVATE.addSubnet(network, bits, 'ipv6')
}

// How long a name may take to resolve.
const LOOKUP_TIMEOUT_MS = 5000

export function isPrivateAddress (address: string): boolean {
  const family = isIP(address)
  return family === 0 || PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** A webhook URL's host that may not be reached: why, in words for its owner. */
export class RefusedAddressError extends Error {
  name = 'RefusedAddressError'
}

/** The URL's host name as an address or a name to resolve (an IPv6 literal without its brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1')

function refuseAny (host: string, addresses: string[]) {
  const refused = addresses.find(isPrivateAddress)
  if (refused !== undefined) {
    throw new RefusedAddressError(refused === host
      ? `${host} is a loopback, private, link-local or reserved address`
      : `${host} resolves to ${refused}, a loopback, private, link-local or reserved address`)
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for node:http that refuses a name resolving to any private address (unless
 * `allowPrivate`), so that what was checked is what is connected to: no second resolution between.
 */
export function guardedLookup (allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, [])
      try {
        if (!allowPrivate) refuseAny(hostname, addresses.map(({ address }) => address))
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, [])
      }
      if (options.all) return callback(null, addresses)
      callback(null, addresses[0].address, addresses[0].family)
    })
  }
}

/**
 * Refuses a URL whose host is, or resolves to, a private address (unless `allowPrivate`), or does
 * not resolve at all. An address written in the URL is checked here: node:http does not look it up.
 */
export async function checkReachable (url: URL, allowPrivate: boolean): Promise<void> {
  const host = hostOf(url)
  if (isIP(host) !== 0) {
    if (!allowPrivate) refuseAny(host, [host])
    return
  }
  const lookup = guardedLookup(allowPrivate)
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RefusedAddressError(`${host} did not resolve within ${LOOKUP_TIMEOUT_MS / 1000} s`)), LOOKUP_TIMEOUT_MS)
    lookup(host, { all: true }, (error) => {
      clearTimeout(timer)
      if (error instanceof RefusedAddressError) reject(error)
      else if (error) reject(new RefusedAddressError(`${host} does not resolve (${error.code ?? error.message})`))
      else resolve()
    })
  })
}
