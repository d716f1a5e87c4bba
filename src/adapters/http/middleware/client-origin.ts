import type { TLSSocket } from 'node:tls';
import type { Middleware } from 'koa';
import { resolveClient, type ClientOrigin } from '../resolve-client.js';
import type { TrustedProxies } from '../trusted-proxies.js';

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
export function clientOrigin(trusted: TrustedProxies | undefined): Middleware {
  return async (ctx, next) => {
    const socket = ctx.req.socket as Partial<TLSSocket> | undefined;
    const client = resolveClient(
      { address: socket?.remoteAddress, encrypted: socket?.encrypted === true, host: ctx.host || undefined },
      (name) => ctx.get(name),
      trusted,
    );
    ctx.state.client = client;
    ctx.request.ip = client.address;
    await next();
  };
}
