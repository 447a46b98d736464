import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses the service never reaches on a user's behalf (a webhook, unless WEBHOOK_ALLOW_PRIVATE_URLS
 * is set; an OAuth client's metadata document, unless OAUTH_ALLOW_PRIVATE_CLIENT_URLS is): every range of the
 * IANA IPv4 and IPv6 Special-Purpose Address Registries that is not globally reachable (loopback,
 * private, shared, link-local with the cloud metadata addresses 169.254.169.254 and
 * fd00:ec2::254, unspecified, documentation, benchmarking, relays, reserved), and multicast.
 * The IPv6 ranges that embed an IPv4 address (IPv4-compatible ::/96, IPv4-mapped
 * ::ffff:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo in 2001::/23)
 * are refused whole, whatever the address inside: a public service has no need of them, and
 * judging the embedded address would be one more parser to get right. IPv6 outside global
 * unicast (2000::/3) is refused too: nothing there is reachable on the internet, and it holds
 * ranges some systems still route locally (site-local fec0::/10).
 */
const blocked4 = new BlockList();
// A list of its own: a BlockList also matches IPv4 addresses against IPv6 rules (as ::a.b.c.d),
// and ::/96 would then refuse every IPv4 address.
const blocked6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked4.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  // Everything outside 2000::/3, in three blocks: ::/3, 4000::/2 and 8000::/1.
  ['::', 3],
  ['4000::', 2],
  ['8000::', 1],
] as const)
  blocked6.addSubnet(net, bits, 'ipv6');

/** True when `address` (an IP literal) is one the service may not reach on a user's behalf (webhooks, client metadata); anything else is refused too. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked4.check(address, 'ipv4');
  if (family === 6) return blocked6.check(address, 'ipv6');
  return true;
}

/** A URL host without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export interface Resolved {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host a user gave (a webhook's, an OAuth client's) and checks every address it gives: a host that resolves to any
 * refused address is refused (an attacker's DNS may answer both). Throws with a readable reason.
 */
export async function resolveChecked(
  url: URL,
  allowPrivate: boolean,
  allowVariable = 'WEBHOOK_ALLOW_PRIVATE_URLS',
): Promise<Resolved> {
  const host = bareHost(url);
  const literal = isIP(host);
  const all: Resolved[] = literal
    ? [{ address: host, family: literal as 4 | 6 }]
    : (await lookup(host, { all: true, verbatim: true })).map((a) => ({
        address: a.address,
        family: a.family as 4 | 6,
      }));
  if (all.length === 0) throw new Error(`${host} did not resolve`);
  if (!allowPrivate) {
    const bad = all.find((a) => isPrivateAddress(a.address));
    if (bad)
      throw new Error(
        `${host} resolves to ${bad.address}, a private or reserved address (set ${allowVariable} to allow it)`,
      );
  }
  return all[0]!;
}
