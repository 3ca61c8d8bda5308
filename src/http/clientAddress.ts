import { isIPv4, isIPv6 } from 'node:net';

/**
 * The client a per-address limit counts: an IPv4 address itself, an IPv6 address by its /64
 * (one subscriber or host usually holds a whole /64, so counting single IPv6 addresses would let
 * one client spread over 2^64 of them). An IPv4-mapped IPv6 address (::ffff:a.b.c.d, what a
 * dual-stack socket reports for an IPv4 peer) is its IPv4 address. Anything else is used as is.
 */
export function clientGroup(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  return `${ipv6Groups(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as lowercase hex without leading zeros. */
function ipv6Groups(ip: string): string[] {
  // A zone (fe80::1%eth0) names the interface, not the address.
  const address = ip.split('%')[0]!;
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  let left = part(head);
  let right = part(tail);
  // A trailing dotted IPv4 (::1.2.3.4, 64:ff9b::1.2.3.4) is the last two groups.
  const expand = (groups: string[]) => {
    const last = groups[groups.length - 1];
    if (!last?.includes('.')) return groups;
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    return [...groups.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  };
  if (tail === undefined) left = expand(left);
  else right = expand(right);
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => Number.parseInt(g, 16).toString(16));
}
