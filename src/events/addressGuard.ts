// Called as dns.lookup (not a named import) so a test can replace the resolver on the one shared
// module object, whichever test file loaded this module first.
import dns from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Webhook URLs point at the agent's server, never at ours: outside development, loopback,
 * private, link-local and other non-public addresses are refused (SSRF). The check runs when a
 * URL is set and again at every delivery on the resolved addresses, so a DNS name that later
 * resolves to a private address is still refused; the delivery then connects to the address it
 * checked, not to whatever a second look-up answers.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // IPv4-compatible ::a.b.c.d (deprecated, never routed), the unspecified address and loopback.
  ['::', 96],
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT): not an address anyone receives webhooks on.
  ['::ffff:0:0:0', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local: deprecated (RFC 3879) but still routed inside some networks, like fc00::/7.
  ['fec0::', 10],
  ['ff00::', 8],
  // Prefixes that embed an IPv4 address (NAT64, 6to4, Teredo) could hide a private one.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/**
 * The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) reaches, or null. Checked as
 * that IPv4 address rather than by a ::ffff:0:0/96 rule: BlockList matches such a rule against
 * every IPv4 address too.
 */
function mappedIpv4(ip: string): string | null {
  // URL parsing spells every form the same way: ::ffff:127.0.0.1 and 0:0:0:0:0:ffff:7f00:1
  // both become [::ffff:7f00:1].
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(new URL(`http://[${ip}]/`).hostname);
  if (!match) return null;
  const high = Number.parseInt(match[1]!, 16);
  const low = Number.parseInt(match[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 6) {
    const v4 = mappedIpv4(ip);
    if (v4) return !blocked.check(v4, 'ipv4');
  }
  return !blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** The address a delivery connects to, checked; or why the host may not receive webhooks. */
export type HostCheck = { address: string; family: 4 | 6 } | { refused: string };

/**
 * Resolves the host once and checks every address it gives. The caller connects to the returned
 * address and never resolves the name again: a second look-up could answer differently (DNS
 * rebinding, a TTL of zero) and reach an address that was never checked.
 */
export async function checkPublicHost(hostname: string): Promise<HostCheck> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost'))
    return { refused: 'localhost is not a public address' };
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return { refused: `cannot resolve ${host}` };
    }
  }
  const bad = addresses.find((a) => !isPublicAddress(a));
  if (bad) return { refused: `${host} resolves to ${bad}, which is not a public address` };
  const [address] = addresses;
  if (!address) return { refused: `cannot resolve ${host}` };
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

/** Null when the host may receive webhooks, else the reason it may not. */
export async function refuseNonPublicHost(hostname: string): Promise<string | null> {
  const checked = await checkPublicHost(hostname);
  return 'refused' in checked ? checked.refused : null;
}
