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

// Link-local addresses and the metadata services on them: refused even with WEBHOOK_ALLOW_PRIVATE,
// which is for receivers on the LAN, never for a cloud instance's credentials.
const LINK_LOCAL = new BlockList()
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4')
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6')
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6')

// How long a name may take to resolve.
const LOOKUP_TIMEOUT_MS = 5000

/** The 16 bytes of an IPv6 address (one that isIP accepts). */
function ipv6Bytes (address: string): number[] {
  let text = address.split('%', 1)[0]
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number)
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::')
  const groupsOf = (part: string | undefined) => part ? part.split(':').map((group) => parseInt(group, 16)) : []
  const first = groupsOf(head)
  const last = groupsOf(tail)
  const groups = tail === undefined ? first : [...first, ...Array(8 - first.length - last.length).fill(0), ...last]
  return groups.flatMap((group) => [group >> 8, group & 0xff])
}

// IPv6 forms that carry an IPv4 address, and where in the 16 bytes it is: each reaches that IPv4
// host (through the stack, a NAT64 or a 6to4 relay), so each is refused as its IPv4 would be.
const EMBEDDING: Array<{ prefix: number[], at: number }> = [
  { prefix: Array(12).fill(0), at: 12 }, // ::a.b.c.d, IPv4-compatible
  { prefix: [...Array(10).fill(0), 0xff, 0xff], at: 12 }, // ::ffff:a.b.c.d, IPv4-mapped
  { prefix: [...Array(8).fill(0), 0xff, 0xff, 0, 0], at: 12 }, // ::ffff:0:a.b.c.d, IPv4-translated
  { prefix: [0, 0x64, 0xff, 0x9b, ...Array(8).fill(0)], at: 12 }, // 64:ff9b::/96, NAT64
  { prefix: [0, 0x64, 0xff, 0x9b, 0, 1], at: 12 }, // 64:ff9b:1::/48, local NAT64
  { prefix: [0x20, 0x02], at: 2 } // 2002::/16, 6to4
]

/** The IPv4 address an IPv6 address carries, when it is one of the forms that do. */
export function embeddedIpv4 (address: string): string | undefined {
  const bytes = ipv6Bytes(address)
  const form = EMBEDDING.find(({ prefix }) => prefix.every((byte, index) => bytes[index] === byte))
  return form && bytes.slice(form.at, form.at + 4).join('.')
}

function inList (list: BlockList, address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true
  if (family === 4) return list.check(address, 'ipv4')
  const ipv4 = embeddedIpv4(address)
  return list.check(address, 'ipv6') || (ipv4 !== undefined && list.check(ipv4, 'ipv4'))
}

export const isPrivateAddress = (address: string): boolean => inList(PRIVATE, address)
export const isLinkLocalAddress = (address: string): boolean => inList(LINK_LOCAL, address)

/** A webhook URL's host that may not be reached: why, in words for its owner. */
export class RefusedAddressError extends Error {
  name = 'RefusedAddressError'
}

/** The URL's host name as an address or a name to resolve (an IPv6 literal without its brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1')

function refuseAny (host: string, addresses: string[], allowPrivate: boolean) {
  const refused = addresses.find(allowPrivate ? isLinkLocalAddress : isPrivateAddress)
  if (refused !== undefined) {
    const what = allowPrivate ? 'a link-local or metadata address' : 'a loopback, private, link-local or reserved address'
    throw new RefusedAddressError(refused === host ? `${host} is ${what}` : `${host} resolves to ${refused}, ${what}`)
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for node:http that refuses a name resolving to any private address (with
 * `allowPrivate`, any link-local one), so that what was checked is what is connected to: no second resolution between.
 */
export function guardedLookup (allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, [])
      try {
        refuseAny(hostname, addresses.map(({ address }) => address), allowPrivate)
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
    refuseAny(host, [host], allowPrivate)
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
