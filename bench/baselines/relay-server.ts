/**
 * The yardstick for streamed chat at scale: a minimal relay. `node:http`, and per request one
 * `fetch` of the model's streaming chat completions (the same OpenAI-compatible server the
 * service is given), the SSE parsed with eventsource-parser, each piece written to the client at
 * once as the service's `delta` event, between a `start` and a `done`. No validation beyond
 * reading the body, no store, no titles, no logging, no metrics: the floor a service streaming
 * a model's reply stands on.
 *
 *   MODEL_BASE_URL=http://127.0.0.1:8090/v1 PORT=8099 node --import tsx bench/baselines/relay-server.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';

const MODEL_BASE_URL = process.env.MODEL_BASE_URL ?? 'http://127.0.0.1:8090/v1';
const MODEL = process.env.MODEL ?? 'paced-1';

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  req.setEncoding('utf8');
  for await (const chunk of req) raw += chunk;
  const { text, user_id: userId } = JSON.parse(raw) as { text?: unknown; user_id?: unknown };
  if (typeof text !== 'string' || typeof userId !== 'string') {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"detail":"text and user_id are required","status":"error"}');
    return;
  }
  const upstream = new AbortController();
  res.once('close', () => upstream.abort());
  const answer = await fetch(`${MODEL_BASE_URL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: text }], stream: true }),
    signal: upstream.signal,
  });
  if (!answer.ok || !answer.body) {
    res.writeHead(502, { 'content-type': 'application/json' }).end('{"detail":"the model failed","status":"error"}');
    return;
  }
  const ids = { conversation_id: randomUUID(), user_message_id: randomUUID(), message_id: randomUUID() };
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(event('start', ids));
  let response = '';
  let finishReason = 'stop';
  const parser = createParser({
    onEvent: ({ data }) => {
      if (data === '[DONE]') return;
      const choice = (JSON.parse(data) as { choices?: { delta?: { content?: string }; finish_reason?: string | null }[] }).choices?.[0];
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      const piece = choice?.delta?.content;
      if (!piece) return;
      response += piece;
      res.write(event('delta', { text: piece }));
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  res.end(event('done', { response, status: 'ok', ...ids, finish_reason: finishReason }));
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/chat/stream') {
    const status = req.url === '/v1/health' ? 200 : 404;
    res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{"status":"ok"}' : '{"detail":"not found","status":"error"}');
    return;
  }
  relay(req, res).catch(() => res.destroy());
});
server.listen(Number(process.env.PORT ?? 8099), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
