import net from 'node:net';

/**
 * Which IP addresses the fetcher may connect to. Anything not globally routable is refused:
 * loopback, RFC 1918, CGNAT, link-local, multicast, unspecified, broadcast/reserved, IPv6 ULA,
 * link-local, site-local, and every IPv6 form that embeds one of those IPv4 addresses
 * (IPv4-mapped, IPv4-compatible, NAT64 well-known prefix, 6to4).
 */

type Cidr4 = readonly [number, number]; // [network as uint32, prefix length]

const BLOCKED_V4: readonly Cidr4[] = [
  [ip4('0.0.0.0'), 8], // "this network", includes unspecified 0.0.0.0
  [ip4('10.0.0.0'), 8],
  [ip4('100.64.0.0'), 10], // CGNAT
  [ip4('127.0.0.0'), 8],
  [ip4('169.254.0.0'), 16], // link-local (cloud metadata lives here)
  [ip4('172.16.0.0'), 12],
  [ip4('192.0.0.0'), 24], // IETF protocol assignments
  [ip4('192.168.0.0'), 16],
  [ip4('198.18.0.0'), 15], // benchmarking
  [ip4('224.0.0.0'), 4], // multicast
  [ip4('240.0.0.0'), 4], // reserved, includes broadcast 255.255.255.255
];

function ip4(text: string): number {
  const parts = text.split('.').map(Number);
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

function inCidr4(value: number, [network, prefix]: Cidr4): boolean {
  if (prefix === 0) return true;
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return ((value & mask) >>> 0) === ((network & mask) >>> 0);
}

function isBlockedV4(value: number): boolean {
  return BLOCKED_V4.some((cidr) => inCidr4(value, cidr));
}

/** Parses an IPv6 text form (with optional embedded dotted quad and zone id) into 8 groups. */
export function parseIpv6(text: string): number[] | null {
  let rest = text.replace(/^\[|\]$/g, '');
  const zone = rest.indexOf('%');
  if (zone >= 0) rest = rest.slice(0, zone);
  if (!net.isIPv6(rest)) return null;
  let tail: number[] = [];
  const dotted = rest.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const v4 = ip4(dotted[2]);
    tail = [v4 >>> 16, v4 & 0xffff];
    rest = dotted[1].endsWith('::') ? dotted[1] : dotted[1].slice(0, -1);
  }
  const [head, tailText] = rest.split('::');
  const headGroups = head ? head.split(':').map((g) => parseInt(g, 16)) : [];
  const tailGroups = tailText !== undefined && tailText !== '' ? tailText.split(':').map((g) => parseInt(g, 16)) : [];
  const explicit = [...headGroups, ...tailGroups, ...tail];
  if (rest.includes('::')) {
    const zeros = 8 - explicit.length;
    if (zeros < 0) return null;
    return [...headGroups, ...new Array<number>(zeros).fill(0), ...tailGroups, ...tail];
  }
  return explicit.length === 8 ? explicit : null;
}

function isBlockedV6(groups: number[]): boolean {
  const embeddedV4 = (hi: number, lo: number): number => ((hi << 16) | lo) >>> 0;
  const allZero = (from: number, to: number): boolean => groups.slice(from, to).every((g) => g === 0);

  if (allZero(0, 8)) return true; // ::
  if (allZero(0, 7) && groups[7] === 1) return true; // ::1
  if (allZero(0, 5) && groups[5] === 0xffff) return isBlockedV4(embeddedV4(groups[6], groups[7])); // ::ffff:a.b.c.d
  if (allZero(0, 4) && groups[4] === 0xffff && groups[5] === 0) return true; // ::ffff:0:a.b.c.d (SIIT), never public
  if (allZero(0, 6)) return isBlockedV4(embeddedV4(groups[6], groups[7])); // ::a.b.c.d (IPv4-compatible)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && allZero(2, 6)) return isBlockedV4(embeddedV4(groups[6], groups[7])); // NAT64
  if (groups[0] === 0x2002) return isBlockedV4(embeddedV4(groups[1], groups[2])); // 6to4
  if ((groups[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((groups[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((groups[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((groups[0] & 0xff00) === 0xff00) return true; // multicast
  if (groups[0] === 0x100 && allZero(1, 4)) return true; // 100::/64 discard
  return false;
}

/** True when the address is globally routable and so safe to fetch from; false for anything unparsable. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (net.isIPv4(bare)) return !isBlockedV4(ip4(bare));
  const groups = parseIpv6(bare);
  if (!groups) return false;
  return !isBlockedV6(groups);
}
