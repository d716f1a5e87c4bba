import parseForwarded from 'forwarded-parse';
import { formatAddress, parseAddress, type TrustedProxies } from './trusted-proxies.js';

/** Who made a request and how: set on `ctx.state.client` for logs and HSTS. */
export interface ClientOrigin {
  /** The client's IP address, `unknown` when a trusted proxy did not know it. */
  address: string;
  /** The scheme the client used: the socket's, or what a trusted proxy reported. */
  protocol: 'http' | 'https';
  /** The host the client asked for (Host / :authority, or a trusted proxy's forwarded host). */
  host: string | undefined;
}

export interface Peer {
  /** The socket's remote address. */
  address: string | undefined;
  /** True on a TLS connection to this service. */
  encrypted: boolean;
  host: string | undefined;
}

/** One hop a proxy reported: who connected to it (`undefined`: not said), with which scheme and host. */
interface Hop {
  address: ReturnType<typeof parseAddress> | undefined;
  protocol?: 'http' | 'https';
  host?: string;
}

const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

const list = (value: string): string[] => value.split(',').map((item) => item.trim()).filter((item) => item !== '');
const asProtocol = (value: string | undefined) => {
  const lower = value?.trim().toLowerCase();
  return lower === 'http' || lower === 'https' ? lower : undefined;
};
const asHost = (value: string | undefined) => (value !== undefined && HOST.test(value.trim()) ? value.trim() : undefined);

/**
 * The hops the nearest proxy reports, client first: `X-Forwarded-For` (with `X-Forwarded-Proto`
 * and `X-Forwarded-Host`), else RFC 7239 `Forwarded`. X-Forwarded-* win when both are present:
 * that is what nginx and Caddy set (and overwrite), so a client cannot smuggle a `Forwarded`
 * past them. Proto/Host lists as long as the address list pair up hop by hop; otherwise their
 * last value (the one the nearest proxy wrote) applies to the whole request.
 */
function reportedHops(header: (name: string) => string): { hops: Hop[]; protocol?: 'http' | 'https'; host?: string } {
  const forwardedFor = list(header('x-forwarded-for'));
  const forwarded = header('forwarded').trim();
  if (forwardedFor.length === 0 && forwarded !== '') {
    try {
      const elements = parseForwarded(forwarded);
      return { hops: elements.map((e) => ({ address: e.for === undefined ? undefined : parseAddress(e.for), protocol: asProtocol(e.proto), host: asHost(e.host) })) };
    } catch {
      return { hops: [] }; // unparsable: as if the proxy had said nothing
    }
  }
  const protocols = list(header('x-forwarded-proto'));
  const hosts = list(header('x-forwarded-host'));
  const hops: Hop[] = forwardedFor.map((address, i) => ({
    address: parseAddress(address),
    protocol: protocols.length === forwardedFor.length ? asProtocol(protocols[i]) : undefined,
    host: hosts.length === forwardedFor.length ? asHost(hosts[i]) : undefined,
  }));
  return {
    hops,
    protocol: protocols.length !== forwardedFor.length ? asProtocol(protocols.at(-1)) : undefined,
    host: hosts.length !== forwardedFor.length ? asHost(hosts.at(-1)) : undefined,
  };
}

/**
 * The client behind the connection. Forwarding headers count only when the direct peer is a
 * trusted proxy; then the reported hops are walked from the right (nearest first), skipping
 * trusted proxies, and the first untrusted one is the client. From anyone else the headers are
 * ignored, so a forged `X-Forwarded-For` changes nothing.
 */
export function resolveClient(peer: Peer, header: (name: string) => string, trusted: TrustedProxies | undefined): ClientOrigin {
  return forwardedClient(directClient(peer.address, peer.encrypted, trusted), peer.host, header, trusted);
}

/** The connection's own side of `resolveClient`: the same for every request on it (clientOrigin keeps it per socket). */
export interface DirectClient {
  address: string;
  protocol: ClientOrigin['protocol'];
  /** The peer as parsed, when it is a trusted proxy whose forwarding headers count. */
  proxy: ReturnType<typeof parseAddress> | undefined;
}

export function directClient(peerAddress: string | undefined, encrypted: boolean, trusted: TrustedProxies | undefined): DirectClient {
  const parsed = parseAddress(peerAddress ?? '');
  return {
    address: parsed ? formatAddress(parsed) : (peerAddress ?? 'unknown'),
    protocol: encrypted ? 'https' : 'http',
    proxy: trusted && parsed && trusted.trusts(parsed) ? parsed : undefined,
  };
}

/** A request's client, from its connection's and, when that is a trusted proxy, from the headers it forwarded. */
export function forwardedClient(direct: DirectClient, host: string | undefined, header: (name: string) => string, trusted: TrustedProxies | undefined): ClientOrigin {
  let { address, protocol } = direct;
  if (!trusted || !direct.proxy) return { address, protocol, host };

  const reported = reportedHops(header);
  protocol = reported.protocol ?? protocol;
  host = reported.host ?? host;
  for (let i = reported.hops.length - 1; i >= 0; i--) {
    const hop = reported.hops[i]!;
    protocol = hop.protocol ?? protocol;
    host = hop.host ?? host;
    if (hop.address === undefined) break; // the proxy did not say who connected to it
    address = hop.address ? formatAddress(hop.address) : 'unknown';
    if (!trusted.trusts(hop.address)) break;
  }
  return { address, protocol, host };
}
