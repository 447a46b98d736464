import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE_URLS is set (decisions §4):
 * loopback, private, shared, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254),
 * unspecified, multicast, reserved and documentation ranges.
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, bits, 'ipv6');

/** True when `address` (an IP literal) is one a webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms reach the IPv4 address inside.
  const mapped = /^(?:0*:)*(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower.replace(/^::/, '0:'));
  if (mapped) return isPrivateAddress(mapped[1]!);
  const hexMapped = /^(?:0*:)*ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower.replace(/^::/, '0:'));
  if (hexMapped) {
    const hi = parseInt(hexMapped[1]!, 16);
    const lo = parseInt(hexMapped[2]!, 16);
    return isPrivateAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return blocked.check(address, 'ipv6');
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
 * Resolves a webhook's host and checks every address it gives: a host that resolves to any
 * refused address is refused (an attacker's DNS may answer both). Throws with a readable reason.
 */
export async function resolveChecked(url: URL, allowPrivate: boolean): Promise<Resolved> {
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
        `${host} resolves to ${bad.address}, a private or reserved address (set WEBHOOK_ALLOW_PRIVATE_URLS to allow it)`,
      );
  }
  return all[0]!;
}
