import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A port on 127.0.0.1 that was free a moment ago and has nothing listening now. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SilentServer {
  port: number;
  /** Connections accepted so far. */
  accepted: number;
  openSockets(): number;
  /** Resolves once every accepted socket has been closed by the client, or rejects after `ms`. */
  allClosed(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Accepts connections, reads what is sent and never answers: a dead service behind a live port. */
export async function startSilentServer(port = 0): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let onChange = () => {};
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.resume();
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      sockets.delete(socket);
      onChange();
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    get accepted() {
      return accepted;
    },
    openSockets: () => sockets.size,
    allClosed: (ms) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${sockets.size} socket(s) still open after ${ms} ms`)), ms);
        onChange = () => {
          if (sockets.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        };
        onChange();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface StallingProxy {
  port: number;
  /** From now on nothing passes either way, and new connections are accepted but never joined: a network that went silent. */
  stall(): void;
  /** Traffic flows again (held bytes are dropped with their connections). */
  resume(): void;
  close(): Promise<void>;
}

/** A TCP proxy in front of `targetPort` that can be made to stop forwarding without closing anything. */
export async function startStallingProxy(targetPort: number): Promise<StallingProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  let stalled = false;
  // Half-open allowed, so that a stalled proxy swallows a FIN as a silent network does (a client
  // closing its side then waits for an answer that never comes); while it flows, each end is passed on.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null };
    pairs.add(pair);
    client.on('error', () => client.destroy());
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (stalled) {
      client.pause();
      return;
    }
    const upstream = connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true });
    pair.upstream = upstream;
    client.on('end', () => {
      if (!stalled) upstream.end();
    });
    upstream.on('end', () => {
      if (!stalled) client.end();
    });
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk) => {
      if (!stalled) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!stalled) client.write(chunk);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      // What was held back (or swallowed) leaves those connections out of step: end them.
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream?.destroy();
      }
    },
    close: async () => {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
