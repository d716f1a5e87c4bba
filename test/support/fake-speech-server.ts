import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeMp3, makeWav } from './audio.js';

export interface SpeechCall {
  path: string;
  authorization: string | undefined;
  body: { model?: string; input?: string; voice?: string; response_format?: string; speed?: number };
}

export type FakeSpeechBehaviour =
  | { kind: 'speak' }
  /** A WAV whose sizes say 0xFFFFFFFF, as servers that stream WAV write it. */
  | { kind: 'streamed-wav' }
  | { kind: 'status'; status: number; body: unknown }
  | { kind: 'garbage' }
  | { kind: 'hang' };

/** Seconds of audio per character at speed 1.0: what a real engine roughly makes. */
export const FAKE_SECONDS_PER_CHARACTER = 0.06;

/**
 * A local server speaking OpenAI's `POST /v1/audio/speech`: a tone whose length follows the
 * text and speed, in the format asked for, at 24 kHz like OpenAI's; or a chosen failure.
 */
export class FakeSpeechServer {
  readonly calls: SpeechCall[] = [];
  behaviour: FakeSpeechBehaviour = { kind: 'speak' };
  /** Time taken before answering, as a real engine would. */
  latencyMs = 0;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeSpeechServer> {
    const server = createServer();
    const fake = new FakeSpeechServer(server);
    server.on('request', (req, res) => void fake.handle(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/audio/speech') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SpeechCall['body'];
    this.calls.push({ path: req.url, authorization: req.headers.authorization, body });
    const behaviour = this.behaviour;
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    const seconds = ([...(body.input ?? '')].length * FAKE_SECONDS_PER_CHARACTER) / (body.speed ?? 1);
    switch (behaviour.kind) {
      case 'speak': {
        const mp3 = body.response_format === 'mp3';
        if (body.response_format === 'pcm') res.writeHead(200, { 'content-type': 'audio/pcm' }).end(makeWav(seconds).subarray(44));
        else res.writeHead(200, { 'content-type': mp3 ? 'audio/mpeg' : 'audio/wav' }).end(mp3 ? makeMp3(seconds) : makeWav(seconds));
        return;
      }
      case 'streamed-wav':
        res.writeHead(200, { 'content-type': 'audio/wav' }).end(makeWav(seconds, 24_000, 0xffffffff));
        return;
      case 'status':
        res.writeHead(behaviour.status, { 'content-type': 'application/json' }).end(JSON.stringify(behaviour.body));
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'audio/wav' }).end('<html>surprise</html>');
        return;
      case 'hang':
        this.hanging.add(res);
        return;
    }
  }
}
