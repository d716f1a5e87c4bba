import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

/**
 * The demo page's reader of one reply across dropped connections (public/reply-follow.js), run
 * in Node: the first stream is a list of events, and the resumes it asks for are answered by a
 * stand-in for fetch. (The page's files are plain JavaScript checked by their own tsconfig, so
 * the module is loaded by URL and given its type here.)
 */

type ChatEvent = { event: string; id: string; data: Record<string, unknown> };
interface FollowModule {
  followReply(
    first: AsyncIterable<ChatEvent>,
    options: { userId: string; signal: AbortSignal; messageId?: string; held?: number; retryDelaysMs?: number[] },
  ): AsyncGenerator<ChatEvent, void, undefined>;
}

const PUBLIC = resolve(dirname(fileURLToPath(import.meta.url)), '../../public');
const { followReply } = (await import(pathToFileURL(join(PUBLIC, 'reply-follow.js')).href)) as FollowModule;

const start = { event: 'start', id: '0', data: { conversation_id: 'c', user_message_id: 'u', message_id: 'm 1' } };
const delta = (text: string, id: number) => ({ event: 'delta', id: String(id), data: { text } });
const done = (response: string) => ({ event: 'done', id: String([...response].length), data: { response, finish_reason: 'stop' } });

/** Yields `events`, then throws `end` (a stream that breaks) unless it is null (one that just ends). */
async function* stream(events: ChatEvent[], end: Error | null = new TypeError('network error')): AsyncGenerator<ChatEvent> {
  for (const event of events) yield event;
  if (end) throw end;
}

/** An event-stream body, as the service writes it. */
const sse = (events: ChatEvent[]) => events.map((e) => `event: ${e.event}\nid: ${e.id}\ndata: ${JSON.stringify(e.data)}\n\n`).join('');

describe('demo page: following a reply across dropped connections (reply-follow.js)', () => {
  const realFetch = globalThis.fetch;
  let asked: string[];
  /** The answers to the resumes, in turn: a body, or an error to throw. */
  let answers: (string | Error | Response)[];

  beforeEach(() => {
    asked = [];
    answers = [];
    globalThis.fetch = (async (input: string | URL | Request) => {
      asked.push(String(input));
      const answer = answers.shift() ?? new TypeError('no answer left');
      if (answer instanceof Error) throw answer;
      if (answer instanceof Response) return answer;
      return new Response(answer, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  const follow = async (first: AsyncIterable<ChatEvent>, options: { messageId?: string; held?: number } = {}) => {
    const seen: ChatEvent[] = [];
    let failure: unknown = null;
    try {
      for await (const event of followReply(first, { userId: 'ann', signal: new AbortController().signal, retryDelaysMs: [0, 0, 0], ...options })) {
        seen.push(event);
      }
    } catch (error) {
      failure = error;
    }
    const text = seen.filter((e) => e.event === 'delta').map((e) => e.data.text).join('');
    return { seen, text, failure, kinds: seen.map((e) => e.event) };
  };

  it('resumes a broken stream after the code points it holds, and yields only text it did not have', async () => {
    // The resume answers from further back than asked (its delta starts at 3): the overlap is dropped.
    answers = [sse([{ ...start, id: '6' }, delta('lo wörld', 11), done('Hello wörld')])];
    const result = await follow(stream([start, delta('Hel', 3), delta('lo ', 6)]));
    expect(asked).to.deep.equal(['v1/chat/stream/m%201?user_id=ann&after=6']);
    expect(result.text).to.equal('Hello wörld');
    expect(result.kinds).to.deep.equal(['start', 'delta', 'delta', 'reconnecting', 'delta', 'done']);
    expect(result.failure).to.equal(null);
  });

  it('asks again when a stream ends without done, or skips text, or a proxy answers 502', async () => {
    answers = [
      sse([{ ...start, id: '2' }, delta('xyz', 9)]), // starts at 6: text from 2 to 6 was missed
      new Response('{"detail":"bad gateway","status":"error"}', { status: 502, headers: { 'content-type': 'application/json' } }),
      sse([{ ...start, id: '2' }, delta('cdef', 6), done('abcdef')]),
    ];
    const result = await follow(stream([start, delta('ab', 2)], null));
    expect(asked.map((url) => new URL(url, 'http://page/').searchParams.get('after'))).to.deep.equal(['2', '2', '2']);
    expect(result.text).to.equal('abcdef');
    expect(result.kinds.filter((k) => k === 'reconnecting')).to.have.length(3);
    expect(result.failure).to.equal(null);
  });

  it('gives up after as many attempts in a row as it has delays, and starts counting again after progress', async () => {
    answers = [new TypeError('down'), sse([delta('c', 3)]), new TypeError('down'), new TypeError('down'), new TypeError('down')];
    const result = await follow(stream([start, delta('ab', 2)]));
    expect(asked).to.have.length(5);
    expect(result.text).to.equal('abc');
    expect(result.failure).to.be.instanceOf(TypeError);
    expect(result.seen.filter((e) => e.event === 'reconnecting').map((e) => e.data.attempt)).to.deep.equal([1, 2, 1, 2, 3]);
  });

  it('does not ask again before start named the reply, nor after a refusal', async () => {
    const early = await follow(stream([]));
    expect(early.failure).to.be.instanceOf(TypeError);
    expect(asked).to.deep.equal([]);

    answers = [new Response('{"detail":"no such reply","status":"error"}', { status: 404, headers: { 'content-type': 'application/json' } })];
    const refused = await follow(stream([start]));
    expect((refused.failure as Error).message).to.equal('no such reply');
    expect(asked).to.have.length(1);
  });

  it('reads on a reply already shown: no start of its own, and audio frames pass through', async () => {
    const audio = { event: 'audio', id: '5', data: { index: 0, text: 'Hi.', format: 'mp3', audio: 'AA==' } };
    const first = stream([{ ...start, id: '5' }, delta(' more', 10), audio, done('Hello more')], null);
    const result = await follow(first, { messageId: 'm 1', held: 5 });
    expect(result.kinds).to.deep.equal(['delta', 'audio', 'done']);
    expect(result.text).to.equal(' more');
  });
});
