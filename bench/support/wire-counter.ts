import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between a PostgreSQL client and its server that counts what the client asks
 * for, read from the wire protocol itself, so the count is the same whatever driver or ORM
 * the client uses:
 *
 * - a round trip ends with a simple-query `Q` message or an extended-protocol `S` (Sync):
 *   after either, the client waits for the server's ReadyForQuery;
 * - a statement is a `Q` or an `E` (Execute); `BEGIN` and `COMMIT` count as statements.
 *
 * The untyped packets that open a connection (the startup message, and an SSL, GSS or cancel
 * request before it) are skipped, so connecting costs nothing in the count. A driver that
 * pipelines (sends several Syncs before reading the answers) would be counted by its Syncs,
 * an upper bound; node-postgres, which MikroORM uses, never pipelines.
 */
export interface WireCounts {
  roundTrips: number;
  statements: number;
}

export interface WireCounter {
  /** Where clients should connect instead of the server. */
  readonly host: string;
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  counts(): WireCounts;
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** Reads one client connection's messages as they stream past, chunk by chunk. */
class ClientStream {
  private pending: Buffer = Buffer.alloc(0);
  private startup = true;

  constructor(private readonly onMessage: (type: string) => void) {}

  feed(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const header = this.startup ? 4 : 5;
      if (this.pending.length < header) return;
      const length = this.startup ? this.pending.readInt32BE(0) : this.pending.readInt32BE(1) + 1;
      if (this.pending.length < length) return;
      if (this.startup) {
        const code = this.pending.readInt32BE(4);
        // After an SSL or GSS request the real startup message follows, untyped too.
        this.startup = code === SSL_REQUEST || code === GSSENC_REQUEST;
      } else {
        this.onMessage(String.fromCharCode(this.pending[0]!));
      }
      this.pending = this.pending.subarray(length);
    }
  }
}

export async function startWireCounter(target: { host: string; port: number }): Promise<WireCounter> {
  const counts: WireCounts = { roundTrips: 0, statements: 0 };
  const sockets = new Set<Socket>();
  const count = (type: string) => {
    if (type === 'Q' || type === 'S') counts.roundTrips++;
    if (type === 'Q' || type === 'E') counts.statements++;
  };

  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const stream = new ClientStream(count);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => undefined); // the other side's close ends both below
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      stream.feed(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };

  return {
    host: '127.0.0.1',
    port,
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    counts: () => ({ ...counts }),
    reset() {
      counts.roundTrips = 0;
      counts.statements = 0;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
