import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What the model says, read from the user's message (a JSON object), so each request of a
 * bench picks its own reply: `pieces` deltas of `size` characters, `delayMs` apart. With
 * `stamp`, each delta begins with `<t=ms since epoch>` taken just before it is written, so
 * a listener can tell how long the delta took to reach it.
 */
export interface ReplyPlan {
  pieces: number;
  size: number;
  delayMs: number;
  stamp?: boolean;
}

export interface PacedModelServer {
  /** For LLM_BASE_URL. */
  baseUrl: string;
  /** Replies fully sent so far. */
  finished: number;
  stop(): Promise<void>;
}

export const STAMP = /<t=(\d+)>/g;

/** A piece of `size` characters; stamped ones carry the time they leave. */
function piece(index: number, plan: ReplyPlan): string {
  const head = plan.stamp ? `<t=${Date.now()}>` : '';
  const filler = `word${index} `.repeat(Math.ceil(plan.size / 6));
  return (head + filler).slice(0, Math.max(plan.size, head.length));
}

/**
 * An OpenAI-compatible streaming server (`POST /v1/chat/completions` with `stream: true`),
 * paced as the request asks. Unlike the tests' fake it makes the text as it goes, so
 * thousands of concurrent replies cost it little.
 */
export async function startPacedModelServer(): Promise<PacedModelServer> {
  const state = { finished: 0 };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(raw) as { messages: { role: string; content: string }[] };
        const plan = JSON.parse(body.messages.filter((m) => m.role === 'user').at(-1)!.content) as ReplyPlan;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: 'paced', object: 'chat.completion.chunk', created: 0, model: 'paced-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: 'assistant', content: '' }));
        for (let i = 0; i < plan.pieces; i++) {
          if (plan.delayMs > 0) await sleep(plan.delayMs);
          if (res.destroyed) return;
          if (!res.write(chunk({ content: piece(i, plan) }))) await once(res, 'drain');
        }
        res.end(chunk({}, 'stop') + 'data: [DONE]\n\n');
        state.finished++;
      })().catch(() => res.destroy());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get finished() {
      return state.finished;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
