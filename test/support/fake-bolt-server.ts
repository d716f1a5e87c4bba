import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pack, Structure, unpack, type PackValue } from './packstream.js';

/**
 * A TCP server speaking enough Bolt for neo4j-driver to connect, log in and check the
 * connection: the handshake (magic 60 60 B0 17, four version proposals, one chosen), then
 * chunked PackStream messages. HELLO, LOGON (5.1+), LOGOFF, RESET and GOODBYE are understood;
 * anything else gets a FAILURE. A wrong password gets the FAILURE a real server sends
 * (Neo.ClientError.Security.Unauthorized) and the connection is closed.
 */
export interface FakeBoltOptions {
  user?: string;
  password: string;
  /** The `server` field of HELLO's SUCCESS. */
  agent?: string;
  /** The Bolt version to choose if the driver offers it: 5.4 (HELLO then LOGON) or 4.4 (credentials in HELLO). */
  version?: '5.4' | '4.4';
  /** Default: a free port. */
  port?: number;
}

export interface FakeBoltServer {
  port: number;
  uri: string;
  /** Every message received, by name, across connections: 'HELLO', 'LOGON', 'RESET', ... */
  messages: string[];
  /** Connections accepted so far, and those still open. */
  connections: number;
  openSockets(): number;
  /** Resolves once no connection is open (the client closed them), or rejects after `ms`. */
  allClosed(ms: number): Promise<void>;
  close(): Promise<void>;
}

const SUCCESS = 0x70;
const FAILURE = 0x7f;
const NAMES: Record<number, string> = { 0x01: 'HELLO', 0x02: 'GOODBYE', 0x0f: 'RESET', 0x6a: 'LOGON', 0x6b: 'LOGOFF', 0x66: 'ROUTE', 0x54: 'TELEMETRY', 0x10: 'RUN' };
const MAGIC = 0x6060b017;

export async function startFakeBoltServer(options: FakeBoltOptions): Promise<FakeBoltServer> {
  const { user = 'neo4j', password, agent = 'Neo4j/5.26.0', version = '5.4', port: wanted = 0 } = options;
  const [major, minor] = version.split('.').map(Number) as [number, number];
  const sockets = new Set<Socket>();
  const state = { messages: [] as string[], connections: 0 };

  const serve = (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    let handshaken = false;
    let message: Buffer[] = [];
    const send = (signature: number, metadata: Record<string, PackValue>) => {
      const body = pack(new Structure(signature, [metadata]));
      const size = Buffer.alloc(2);
      size.writeUInt16BE(body.length);
      socket.write(Buffer.concat([size, body, Buffer.from([0, 0])]));
    };
    const unauthorized = () => {
      send(FAILURE, { code: 'Neo.ClientError.Security.Unauthorized', message: 'The client is unauthorized due to authentication failure.' });
      socket.end();
    };
    const credentialsMatch = (auth: Record<string, PackValue>) => auth.scheme === 'basic' && auth.principal === user && auth.credentials === password;

    const handle = (request: Structure) => {
      const name = NAMES[request.signature] ?? `0x${request.signature.toString(16)}`;
      state.messages.push(name);
      const extra = (request.fields[0] ?? {}) as Record<string, PackValue>;
      if (name === 'HELLO') {
        if (major < 5 && !credentialsMatch(extra)) return unauthorized();
        return send(SUCCESS, { server: agent, connection_id: `bolt-${state.connections}`, hints: {} });
      }
      if (name === 'LOGON') return credentialsMatch(extra) ? send(SUCCESS, {}) : unauthorized();
      if (name === 'RESET' || name === 'LOGOFF') return send(SUCCESS, {});
      if (name === 'GOODBYE') return void socket.end();
      send(FAILURE, { code: 'Neo.ClientError.Request.Invalid', message: `the fake Bolt server does not support ${name}` });
    };

    socket.on('data', (data) => {
      buffered = Buffer.concat([buffered, data]);
      if (!handshaken) {
        if (buffered.length < 20) return;
        if (buffered.readUInt32BE(0) !== MAGIC) return void socket.destroy();
        const offered = [4, 8, 12, 16].some((at) => {
          const [range, offeredMinor, offeredMajor] = [buffered[at + 1]!, buffered[at + 2]!, buffered[at + 3]!];
          return offeredMajor === major && minor <= offeredMinor && minor >= offeredMinor - range;
        });
        socket.write(Buffer.from([0, 0, offered ? minor : 0, offered ? major : 0]));
        if (!offered) return void socket.end();
        handshaken = true;
        buffered = buffered.subarray(20);
      }
      while (buffered.length >= 2) {
        const size = buffered.readUInt16BE(0);
        if (buffered.length < 2 + size) return;
        if (size === 0) {
          if (message.length) handle(unpack(Buffer.concat(message))[0] as Structure);
          message = [];
        } else {
          message.push(buffered.subarray(2, 2 + size));
        }
        buffered = buffered.subarray(2 + size);
      }
    });
  };

  const server: Server = createServer(serve);
  server.listen(wanted, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    uri: `bolt://127.0.0.1:${port}`,
    messages: state.messages,
    get connections() {
      return state.connections;
    },
    openSockets: () => sockets.size,
    allClosed: async (ms) => {
      const deadline = Date.now() + ms;
      while (sockets.size > 0) {
        if (Date.now() > deadline) throw new Error(`${sockets.size} socket(s) still open after ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
