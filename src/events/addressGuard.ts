import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Webhook URLs point at the agent's server, never at ours: outside development, loopback,
 * private, link-local and other non-public addresses are refused (SSRF). The check runs when a
 * URL is set and again at every delivery on the resolved addresses, so a DNS name that later
 * resolves to a private address is still refused.
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
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  // Prefixes that embed an IPv4 address (NAT64, 6to4, Teredo) could hide a private one.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  // No rule for IPv4-mapped ::ffff:0:0/96: BlockList matches those against the IPv4 rules above
  // (::ffff:127.0.0.1 is refused), and it matches every IPv4 address against such a rule, so
  // one here would refuse all of IPv4.
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  return !blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** Null when the host may receive webhooks, else the reason it may not. */
export async function refuseNonPublicHost(hostname: string): Promise<string | null> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost is not a public address';
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return `cannot resolve ${host}`;
    }
  }
  const bad = addresses.find((a) => !isPublicAddress(a));
  return bad ? `${host} resolves to ${bad}, which is not a public address` : null;
}
