import type { TLSSocket } from 'node:tls';
import { directClient, forwardedClient, type ClientOrigin, type DirectClient } from '../resolve-client.js';
import type { TrustedProxies } from '../trusted-proxies.js';
import type { RequestStep } from './steps.js';

declare module 'koa' {
  interface DefaultState {
    client: ClientOrigin;
  }
}

/**
 * Sets `ctx.state.client` (address, scheme, host) for the access log and HSTS, believing
 * `X-Forwarded-*` / `Forwarded` only from the trusted proxies (resolve-client.ts). Koa's own
 * `app.proxy` would believe them from anyone, so it stays off; `ctx.ip` is set from here instead.
 */
export function clientOrigin(trusted: TrustedProxies | undefined): RequestStep {
  // The peer's address parsed once per connection, not once per request on it.
  const direct = new WeakMap<object, DirectClient>();
  return (ctx) => {
    const socket = ctx.req.socket as Partial<TLSSocket> | undefined;
    let peer = socket && direct.get(socket);
    if (!peer) {
      peer = directClient(socket?.remoteAddress, socket?.encrypted === true, trusted);
      if (socket) direct.set(socket, peer);
    }
    const client = forwardedClient(peer, ctx.host || undefined, (name) => ctx.get(name), trusted);
    ctx.state.client = client;
    ctx.request.ip = client.address;
  };
}
