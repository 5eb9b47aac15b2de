import net from 'node:net';

/**
 * Which addresses the system may connect to on a user's behalf (imports, webhooks). Everything that is not plainly public unicast is
 * refused: the IANA special-purpose registries for IPv4 and IPv6, plus IPv6 outside 2000::/3.
 */
const BLOCKED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved (IETF protocol assignments)'],
  ['192.0.2.0', 24, 'reserved (documentation)'],
  ['192.31.196.0', 24, 'reserved (AS112)'],
  ['192.52.193.0', 24, 'reserved (AMT)'],
  ['192.88.99.0', 24, 'reserved (6to4 relay)'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'reserved (AS112)'],
  ['198.18.0.0', 15, 'reserved (benchmarking)'],
  ['198.51.100.0', 24, 'reserved (documentation)'],
  ['203.0.113.0', 24, 'reserved (documentation)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const BLOCKED_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'reserved (local-use NAT64)'],
  ['100::', 64, 'reserved (discard-only)'],
  ['2001::', 23, 'reserved (IETF protocol assignments, Teredo)'],
  ['2001:db8::', 32, 'reserved (documentation)'],
  ['3fff::', 20, 'reserved (documentation)'],
  ['5f00::', 16, 'reserved (SRv6)'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

function blockList(entries: [string, number, string][], family: 'ipv4' | 'ipv6') {
  return entries.map(([addr, prefix, why]) => {
    const list = new net.BlockList();
    list.addSubnet(addr, prefix, family);
    return { list, why, family };
  });
}

const V4 = blockList(BLOCKED_V4, 'ipv4');
const V6 = blockList(BLOCKED_V6, 'ipv6');

export interface AllowList {
  check(address: string, family: 'ipv4' | 'ipv6'): boolean;
}

/**
 * Parses an allow-list variable such as IMPORT_ALLOW_CIDRS or WEBHOOKS_ALLOW_CIDRS
 * ("127.0.0.1/32,fd00::/8"); an invalid entry fails start-up naming the variable.
 */
export function parseAllowCidrs(raw: string, variable = 'IMPORT_ALLOW_CIDRS'): AllowList {
  const list = new net.BlockList();
  for (const part of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [addr, prefix] = part.split('/');
    const family = net.isIP(addr ?? '');
    const bits = Number(prefix);
    if (!family || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      throw new Error(`Invalid configuration: ${variable} has an invalid entry ${JSON.stringify(part)}`);
    }
    list.addSubnet(addr!, bits, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Expands an IPv6 address to its 8 groups (handles `::` and a trailing dotted IPv4). */
function groupsOf(ip: string): number[] {
  let s = ip.toLowerCase();
  const dotted = s.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const p = dotted[1]!.split('.').map(Number);
    s = s.slice(0, -dotted[1]!.length) + `${((p[0]! << 8) | p[1]!).toString(16)}:${((p[2]! << 8) | p[3]!).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail !== undefined ? 8 - h.length - t.length : 0;
  return [...h, ...Array(fill).fill('0'), ...t].map((g) => parseInt(g, 16));
}

const v4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * Why an address must not be connected to, or null when it is public. IPv6 forms that embed an
 * IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that IPv4 address.
 */
export function blockedReason(address: string, allow?: AllowList): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'is not an IP address';
  if (allow?.check(address, family === 4 ? 'ipv4' : 'ipv6')) return null;
  if (family === 4) {
    const hit = V4.find((b) => b.list.check(address, 'ipv4'));
    return hit ? `${address} is a ${hit.why} address` : null;
  }
  const g = groupsOf(address);
  const embedded =
    g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff
      ? ['IPv4-mapped', v4FromGroups(g[6]!, g[7]!)]
      : g.slice(0, 6).every((x) => x === 0)
        ? ['IPv4-compatible', v4FromGroups(g[6]!, g[7]!)]
        : g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)
          ? ['NAT64', v4FromGroups(g[6]!, g[7]!)]
          : g[0] === 0x2002
            ? ['6to4', v4FromGroups(g[1]!, g[2]!)]
            : undefined;
  const special = V6.slice(0, 2).find((b) => b.list.check(address, 'ipv6'));
  if (special) return `${address} is a ${special.why} address`;
  if (embedded) {
    const inner = blockedReason(embedded[1]!, allow);
    if (inner) return `${address} is an ${embedded[0]} IPv6 address and ${inner}`;
    if (embedded[0] === 'IPv4-compatible') return `${address} is a deprecated IPv4-compatible IPv6 address`;
    return null;
  }
  const hit = V6.find((b) => b.list.check(address, 'ipv6'));
  if (hit) return `${address} is a ${hit.why} address`;
  if ((g[0]! & 0xe000) !== 0x2000) return `${address} is not a global unicast IPv6 address`;
  return null;
}

const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'];

/**
 * Checks a URL before any connection: HTTPS only, no credentials, no local names, and no literal
 * address that is not public. Odd spellings of IPv4 (decimal, octal, hex, shortened) are normalized
 * by the WHATWG URL parser first, so `https://0x7f.1/` is judged as 127.0.0.1.
 * Returns the parsed URL, or the reason it is refused.
 */
export function checkUrl(raw: string, allow?: AllowList): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: `must use https (got ${url.protocol.replace(':', '')})` };
  if (url.username || url.password) return { ok: false, reason: 'must not contain credentials' };
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === '') return { ok: false, reason: 'has no host' };
  if (net.isIP(host)) {
    const why = blockedReason(host, allow);
    return why ? { ok: false, reason: `points to a non-public address: ${why}` } : { ok: true, url };
  }
  if (host === 'localhost' || BLOCKED_SUFFIXES.some((s) => host.endsWith(s))) {
    return { ok: false, reason: `points to a local host name (${host})` };
  }
  if (!host.includes('.')) return { ok: false, reason: `host name ${host} is not a public, fully qualified name` };
  return { ok: true, url };
}
