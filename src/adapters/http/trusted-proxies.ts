import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Names an operator may write instead of ranges in TRUST_PROXY. */
const SHORTCUTS: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

export const TRUST_PROXY_SHORTCUTS = Object.keys(SHORTCUTS);

/**
 * An IP address as written in a socket, `X-Forwarded-For` or `Forwarded` (with or without a port
 * or brackets: `192.0.2.1:4711`, `[2001:db8::1]:4711`), normalised: IPv4-mapped IPv6 addresses
 * (`::ffff:10.0.0.1`, what a dual-stack listener reports) become plain IPv4. Null when it is no
 * address (`unknown`, an obfuscated `_hidden`, garbage).
 */
export function parseAddress(text: string): Address | null {
  let candidate = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(candidate);
  if (bracketed) candidate = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(candidate)) candidate = candidate.slice(0, candidate.lastIndexOf(':'));
  // node:net is strict where ipaddr.js follows inet_aton ("10.0.0", "0x7f.1", octal "010.0.0.1").
  if (isIP(candidate) === 0) return null;
  try {
    return ipaddr.process(candidate);
  } catch {
    return null;
  }
}

/** The text form used in logs and `ctx.state.client.address`. */
export function formatAddress(address: Address): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}

const notAnEntry = (entry: string) => new TypeError(`"${entry}" is neither an address, a CIDR range nor one of ${TRUST_PROXY_SHORTCUTS.join(', ')}`);

function parseRange(entry: string): Range[] {
  const shortcut = SHORTCUTS[entry.toLowerCase()];
  if (shortcut) return shortcut.flatMap(parseRange);
  if (entry.includes('/')) {
    const [address, bits] = entry.split('/');
    if (isIP(address!) === 0 || !/^\d{1,3}$/.test(bits!) || !ipaddr.isValidCIDR(entry)) throw notAnEntry(entry);
    const [range, prefix] = ipaddr.parseCIDR(entry);
    // ::ffff:10.0.0.0/104 means 10.0.0.0/8: addresses are compared after normalising.
    if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
      return [[(range as ipaddr.IPv6).toIPv4Address(), prefix - 96]];
    }
    return [[range, prefix]];
  }
  const address = parseAddress(entry);
  if (!address) throw notAnEntry(entry);
  return [[address, address.kind() === 'ipv4' ? 32 : 128]];
}

/** The proxies whose forwarding headers are believed (TRUST_PROXY). */
export class TrustedProxies {
  private constructor(private readonly ranges: Range[]) {}

  /** Addresses, CIDR ranges and shortcuts (`loopback`, `private`, `linklocal`); throws a TypeError naming a bad entry. */
  static parse(entries: readonly string[]): TrustedProxies {
    return new TrustedProxies(entries.flatMap((entry) => parseRange(entry.trim())));
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  trusts(address: Address | null): boolean {
    if (!address) return false;
    return this.ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  }
}
