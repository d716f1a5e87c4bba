import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';

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
