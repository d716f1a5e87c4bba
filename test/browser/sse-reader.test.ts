import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

/**
 * The demo page's event-stream reader (public/sse.js), run in Node, which has the same web
 * streams as the browser. The page's files are plain JavaScript checked by their own tsconfig,
 * so the module is loaded by URL and given its type here.
 */

interface ServerSentEvent {
  event: string;
  data: string;
  id: string;
}
interface SseModule {
  readEventStream(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<ServerSentEvent, void, undefined>;
}

const PUBLIC = resolve(dirname(fileURLToPath(import.meta.url)), '../../public');
const { readEventStream } = (await import(pathToFileURL(join(PUBLIC, 'sse.js')).href)) as SseModule;

/**
 * A body that delivers `chunks` one by one, then ends (or, `open`, stays open like a reply still
 * being written), and notes whether it was cancelled.
 */
function bodyOf(chunks: Uint8Array[], { open = false } = {}) {
  const seen = { cancelled: false, pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[seen.pulled++];
      if (chunk) controller.enqueue(chunk);
      else if (!open) controller.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { body, seen };
}

/** Cancelling reaches the source through the decoder's pipe a few ticks later. */
async function eventually(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return condition();
}

const bytes = (text: string) => new TextEncoder().encode(text);

async function readAll(chunks: Uint8Array[]): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readEventStream(bodyOf(chunks).body)) events.push(event);
  return events;
}

/** The chat stream as the service sends it once every event carries an `id:` line. */
const CHAT_STREAM = [
  'id: 0\nevent: start\ndata: {"conversation_id":"c1","user_message_id":"u1","message_id":"a1"}\n\n',
  ': ping\n\n',
  'id: 6\nevent: delta\ndata: {"text":"Héllo "}\n\n',
  'event: audio\ndata: {"index":0}\n\n',
  'id: 12\nevent: delta\ndata: {"text":"wörld👋"}\n\n',
  'id: 12\nevent: done\ndata: {"response":"Héllo wörld👋","status":"ok"}\n\n',
].join('');

const CHAT_EVENTS: ServerSentEvent[] = [
  { event: 'start', data: '{"conversation_id":"c1","user_message_id":"u1","message_id":"a1"}', id: '0' },
  { event: 'delta', data: '{"text":"Héllo "}', id: '6' },
  // An event without its own id keeps the last one, as the standard's lastEventId does.
  { event: 'audio', data: '{"index":0}', id: '6' },
  { event: 'delta', data: '{"text":"wörld👋"}', id: '12' },
  { event: 'done', data: '{"response":"Héllo wörld👋","status":"ok"}', id: '12' },
];

describe('demo page: the event-stream reader (public/sse.js)', () => {
  it('yields each event with its name, data and SSE id, skipping comments', async () => {
    expect(await readAll([bytes(CHAT_STREAM)])).to.deep.equal(CHAT_EVENTS);
  });

  it('gives the same events however the bytes are cut (inside lines, CRLF pairs and characters)', async () => {
    const whole = bytes(CHAT_STREAM.replaceAll('\n', '\r\n'));
    for (let cut = 1; cut < whole.length; cut++) {
      const events = await readAll([whole.slice(0, cut), whole.slice(cut)]);
      expect(events, `cut at byte ${cut}`).to.deep.equal(CHAT_EVENTS);
    }
    const oneByteEach = Array.from(whole, (byte) => Uint8Array.of(byte));
    expect(await readAll(oneByteEach)).to.deep.equal(CHAT_EVENTS);
  });

  it('follows the standard: CR line ends, a BOM, joined data lines, default name, ids', async () => {
    const stream = [
      '\uFEFFdata: one\rdata:two\r\r', // no space after the colon is kept as is
      'id\nevent: named\ndata\n\n', // a field without a colon has an empty value
      'id: x\0y\ndata: nul\n\n', // an id with NUL is ignored
      'id: 7\nretry: 10\nunknown: field\ndata: last\n\n',
      'data: never dispatched, no blank line',
    ].join('');
    expect(await readAll([bytes(stream)])).to.deep.equal([
      { event: 'message', data: 'one\ntwo', id: '' },
      { event: 'named', data: '', id: '' },
      { event: 'message', data: 'nul', id: '' },
      { event: 'message', data: 'last', id: '7' },
    ]);
  });

  it('sets the id even for a block without data, and dispatches nothing for it', async () => {
    expect(await readAll([bytes('id: 3\n\ndata: after\n\n')])).to.deep.equal([{ event: 'message', data: 'after', id: '3' }]);
  });

  it('cancels the body when the signal aborts', async () => {
    const controller = new AbortController();
    const { body, seen } = bodyOf([bytes('data: a\n\n'), bytes('data: b\n\n')], { open: true });
    const events: string[] = [];
    let failure: unknown = null;
    try {
      for await (const event of readEventStream(body, controller.signal)) {
        events.push(event.data);
        controller.abort();
      }
    } catch (error) {
      failure = error;
    }
    expect(events).to.deep.equal(['a']);
    expect(failure, 'the stream simply ends').to.equal(null);
    expect(await eventually(() => seen.cancelled)).to.equal(true);
  });

  it('lets the body end when the consumer is done with the events (a cancelled request shows as failed in the browser), and cancels one that does not end within 2 s', async function () {
    this.timeout(10_000);
    // The body's end comes a moment after the last event, as the service's does.
    const ending = { cancelled: false, ended: false };
    const chunks = [bytes('event: done\ndata: {}\n\n'), bytes(': the end\n')];
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const chunk = chunks.shift();
        if (!chunk) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          ending.ended = true;
          return controller.close();
        }
        controller.enqueue(chunk);
      },
      cancel() {
        ending.cancelled = true;
      },
    });
    for await (const event of readEventStream(body)) {
      expect(event.event).to.equal('done');
      break;
    }
    expect(await eventually(() => ending.ended), 'read to its end').to.equal(true);
    expect(ending.cancelled).to.equal(false);

    const open = bodyOf([bytes('data: a\n\ndata: b\n\n')], { open: true });
    const seen = open.seen;
    for await (const event of readEventStream(open.body)) {
      expect(event.data).to.equal('a');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await eventually(() => seen.cancelled)).to.equal(true);
  });
});
