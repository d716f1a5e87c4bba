import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';

/** One server-sent event: an optional `event:` name, an optional `id:` and one `data:` line. */
export interface SseFrame {
  event?: string;
  /** The SSE id: a client that reconnects sends the last one back as `Last-Event-ID`. */
  id?: string;
  /** Written as one `data:` line, so it must hold no line break (JSON.stringify never makes one). */
  data: string;
}

/** Headers that stop proxies (nginx: X-Accel-Buffering) and caches from holding events back. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

/**
 * Writes `text/event-stream` straight to Node's response, bypassing Koa's body handling so each
 * event leaves at once. Headers earlier middleware set (X-Request-Id, security headers) are
 * already on the response and go out with these: with the first event when it is sent at once
 * (one write, not two: at thousands of streams opening together each write counts), else by
 * themselves at the end of the tick. A `: ping` comment is sent whenever nothing else was written
 * for `pingIntervalMs`. Writes after the client left are dropped.
 */
export class SseWriter {
  private readonly ping: NodeJS.Timeout;
  private closed = false;
  private wrote = false;

  private constructor(
    private readonly res: ServerResponse,
    pingIntervalMs: number,
  ) {
    this.ping = setInterval(() => this.write(': ping\n\n'), pingIntervalMs);
    res.once('close', () => {
      this.closed = true;
      clearInterval(this.ping);
    });
    process.nextTick(() => {
      if (!this.wrote && !this.gone) res.flushHeaders();
    });
  }

  static open(ctx: Context, extraHeaders: Record<string, string>, pingIntervalMs: number): SseWriter {
    ctx.respond = false;
    ctx.status = 200; // for the access log; Koa writes nothing itself now
    ctx.res.writeHead(200, { ...SSE_HEADERS, ...extraHeaders });
    return new SseWriter(ctx.res, pingIntervalMs);
  }

  /** True once the client has gone or the stream was ended. */
  get gone(): boolean {
    return this.closed || this.res.writableEnded || responseClosed(this.res);
  }

  /**
   * Writes the frames; resolves once the client has taken them in (Node's buffer drained), so
   * a slow client holds up only its own reader and never gathers the whole reply in memory.
   * Undefined when it took them at once: the common case, with nothing to wait for (a caller
   * of every piece of a thousand streams skips a promise and its turn of the queue).
   */
  send(frames: SseFrame[]): Promise<void> | undefined {
    const text = frames.length === 1 ? frameText(frames[0]!) : frames.map(frameText).join('');
    if (text === '' || this.write(text)) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  end(): void {
    clearInterval(this.ping);
    if (!this.gone) this.res.end();
  }

  /** False when the client is slow (the text waits in Node's buffer) or gone. */
  private write(text: string): boolean {
    if (this.gone) return true;
    this.wrote = true;
    this.ping.refresh();
    return this.res.write(text);
  }
}

const frameText = ({ event, id, data }: SseFrame) => (event ? `event: ${event}\n` : '') + (id !== undefined ? `id: ${id}\n` : '') + `data: ${data}\n\n`;

/**
 * True once the client is gone. An HTTP/1.1 response says so in `destroyed`; an HTTP/2 one (the
 * compatibility API's Http2ServerResponse) has no `destroyed`, but its stream does. (Its
 * `writableFinished` is true after a reset too, so only `writableEnded` tells that we ended it.)
 */
export function responseClosed(res: ServerResponse): boolean {
  return res.destroyed === true || (res as { stream?: { destroyed?: boolean } }).stream?.destroyed === true;
}

/**
 * The client of a stream: `signal` aborts once it is gone; `onDisconnect` is told when it goes
 * before the stream came to its end (`ended()`); `release()` stops watching.
 */
export function watchClient(res: ServerResponse, onDisconnect?: () => void): { signal: AbortSignal; ended(): void; release(): void } {
  const client = new AbortController();
  let ended = false;
  const onClose = () => {
    client.abort();
    if (!ended) onDisconnect?.();
  };
  res.once('close', onClose);
  if (responseClosed(res)) onClose();
  return {
    signal: client.signal,
    ended: () => void (ended = true),
    release: () => void res.off('close', onClose),
  };
}
