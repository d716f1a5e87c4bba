import { once } from 'node:events';
import type { Server } from 'node:net';

/** The port cannot be listened on: one clear line at start-up instead of a raw stack trace. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use (is another copy of the service running?)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address does not belong to this machine',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/**
 * Connections the kernel holds for us until they are accepted (the kernel caps it at
 * net.core.somaxconn, 4096 on current Linux). Node's default, 511, overflowed when a thousand
 * clients connected at once while the event loop was busy starting the streams already
 * accepted: the kernel dropped the rest, and each dropped client waited a second (then three,
 * then seven) to try again, a wait that landed on its first delta.
 */
export const LISTEN_BACKLOG = 4096;

/** Listens on `host:port`, turning Node's `listen` errors into a ListenError naming the address. */
export async function listen(server: Server, port: number, host: string): Promise<void> {
  server.listen({ port, host, backlog: LISTEN_BACKLOG });
  try {
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const reason = REASONS[code] ?? (code || String((error as Error).message));
    throw new ListenError(`cannot listen on ${host}:${port}: ${reason}`);
  }
}
