import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { scriptProcess } from './script-process.js';

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

/** The service's settings for a paced model (in this process or its own): an OpenAI-compatible model, no retries. */
export const pacedModelEnvironment = (model: { baseUrl: string }) => ({
  LLM_PROVIDER: 'openai',
  LLM_BASE_URL: model.baseUrl,
  LLM_MODEL: 'paced-1',
  LLM_API_KEY: 'sk-bench',
  LLM_MAX_RETRIES: '0',
});

/** Characters of the plan's text a non-streamed answer (a conversation title, about 8 words) holds at most. */
const TITLE_CHARACTERS = 56;

/** A piece of `size` characters; stamped ones carry the time they leave. */
function piece(index: number, plan: ReplyPlan): string {
  const head = plan.stamp ? `<t=${Date.now()}>` : '';
  const filler = `word${index} `.repeat(Math.ceil(plan.size / 6));
  return (head + filler).slice(0, Math.max(plan.size, head.length));
}

/**
 * An OpenAI-compatible server (`POST /v1/chat/completions`), paced as the request asks: with
 * `stream: true` each piece as it is made; without (the conversation titles the service asks
 * for), as many of the first pieces as make a title (about 8 words) as one JSON completion, once
 * those pieces' time has passed, as a model answers a title at its pace. Unlike the tests'
 * fake it makes the text as it goes, so thousands of concurrent replies cost it little. Its
 * listen backlog is large, so thousands of connections at once are never refused by it.
 */
export async function startPacedModelServer(): Promise<PacedModelServer> {
  const state = { finished: 0 };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(raw) as { messages: { role: string; content: string }[]; stream?: boolean };
        const plan = JSON.parse(body.messages.filter((m) => m.role === 'user').at(-1)!.content) as ReplyPlan;
        if (body.stream !== true) {
          const pieces = Math.min(plan.pieces, Math.max(1, Math.ceil(TITLE_CHARACTERS / plan.size)));
          if (plan.delayMs > 0) await sleep(plan.delayMs * pieces);
          const content = Array.from({ length: pieces }, (_, i) => piece(i, plan)).join('');
          const message = { role: 'assistant', content };
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ id: 'paced', object: 'chat.completion', created: 0, model: 'paced-1', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
          return;
        }
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
  server.listen({ port: 0, host: '127.0.0.1', backlog: 8192 });
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

/** The paced model server running in a child process (bench/support/run-paced-model.ts). */
export interface PacedModelProcess {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startPacedModelProcess(): Promise<PacedModelProcess> {
  const child = scriptProcess('run-paced-model.ts', [], ['ignore', 'pipe', 'inherit']);
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    child.once('exit', (code) => reject(new Error(`the paced model process exited (${code}) before it listened`)));
  });
  return { baseUrl, pid: child.pid!, stop };
}
