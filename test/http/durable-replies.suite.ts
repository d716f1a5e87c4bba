import { AbstractChat, DefaultChatTransport, type ChatState, type ChatStatus, type UIMessage, type UIMessageChunk } from 'ai';
import { expect } from 'chai';
import type { AdapterOverrides } from '../../src/bootstrap/tokens.js';
import { ChatModelFailedError } from '../../src/domain/errors.js';
import { documentedFetch } from '../support/documented-responses.js';
import { uid } from '../support/ids.js';
import { codePoints, eventually, replyClient, type ReplyClient } from '../support/reply-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import type { TestService } from '../support/service.js';

export type StartService = (environment?: Record<string, string>, overrides?: AdapterOverrides) => Promise<TestService>;

/** A store that outlives a service: what to start the service with, and how to read it once that service stopped. */
export interface LastingStore {
  overrides: AdapterOverrides;
  messages(userId: string, conversationId: string): Promise<{ role: string; text: string; status: string; metadata: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

export interface DurableReplyFixture {
  start: StartService;
  lastingStore(): Promise<LastingStore>;
}

/** The state `useChat` keeps in React, kept in plain fields: enough to drive the SDK's own Chat. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => void (this.messages[index] = message);
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * The AI SDK's transport as a front end configures it: the chat id is the conversation, and
 * the reconnect request (a GET, which has no body) carries the user in its query.
 */
const transportFor = (api: string, userId: string) =>
  new DefaultChatTransport<UIMessage>({
    api,
    body: { user_id: userId },
    fetch: documentedFetch,
    prepareReconnectToStreamRequest: ({ api: base, id }) => ({ api: `${base}/${encodeURIComponent(id)}/stream?user_id=${encodeURIComponent(userId)}` }),
  });

class PlainChat extends AbstractChat<UIMessage> {
  constructor(api: string, userId: string, conversationId: string) {
    super({ id: conversationId, transport: transportFor(api, userId), state: new PlainChatState() });
  }
}

const textOf = (message: UIMessage | undefined) => message?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';

/** Who a test chats as: a user and a conversation of their own, and a message id to repeat. */
const someone = () => ({ user_id: uid('u'), conversation_id: uid('c'), message_id: uid('m') });

/**
 * The durable replies of the contract ("Durable replies: resume and stop"), through HTTP, on
 * one store: a reply outlives its connection, is stored while it grows, resumes from any
 * position, stops on request, and is joined by a repeated message_id. The model is scripted,
 * so each test decides what is said between its looks at the service.
 */
export function durableReplySuite({ start, lastingStore }: DurableReplyFixture): void {
  let service: TestService;
  let replies: ReplyClient;
  const model = new ScriptedChatModel();
  before(async () => {
    service = await start({ SHUTDOWN_TIMEOUT_MS: '1000', STREAM_WRITE_INTERVAL_MS: '50' }, { chatModel: model });
    replies = replyClient(service.url);
  });
  after(() => service.stop());
  // A test that failed half-way must not hand its model call to the next one.
  beforeEach(() => model.forgetCalls());

  it('a client that disconnects mid-stream leaves the reply running; the whole reply is stored', async () => {
    const who = someone();
    const stream = await replies.start({ ...who, text: 'tell me everything' });
    const call = await model.nextCall();
    call.say('The first part, ');
    await stream.until('The first part, ');
    await stream.leave();
    call.say('the second part ', 'and the end.');
    call.finish();
    const reply = await eventually(async () => (await replies.messages(who.user_id, who.conversation_id)).find((m) => m.role === 'assistant' && m.status === 'completed'), 'the reply to be stored');
    expect(call.wasAborted).to.equal(false);
    expect(reply).to.include({ text: 'The first part, the second part and the end.', message_id: stream.events[0]!.json.message_id });
    expect(reply.metadata).to.include({ finish_reason: 'stop', model: 'scripted-1' });
  });

  it('loadMessages during a reply lists it in_progress with a growing prefix of its text', async () => {
    const who = someone();
    const stream = await replies.start({ ...who, text: 'go on' });
    const call = await model.nextCall();
    const assistant = async () => (await replies.messages(who.user_id, who.conversation_id)).find((m) => m.role === 'assistant');
    const opened = await assistant();
    expect(opened, 'the reply is listed from start on').to.include({ status: 'in_progress', text: '', message_id: stream.events[0]!.json.message_id });
    const [user] = await replies.messages(who.user_id, who.conversation_id);
    expect(user).to.include({ role: 'user', status: 'completed' });
    const seen: string[] = [];
    for (const piece of ['One, ', 'two, ', 'three.']) {
      call.say(piece);
      await stream.until(call.text);
      const shown = await eventually(async () => {
        const reply = await assistant();
        return reply?.text === call.text ? reply : undefined;
      }, `the stored text to reach ${JSON.stringify(call.text)}`);
      expect(shown.status).to.equal('in_progress');
      seen.push(shown.text);
    }
    call.finish();
    const done = await stream.end();
    for (const prefix of seen) expect(done.json.response.startsWith(prefix)).to.equal(true);
    expect(await assistant()).to.include({ status: 'completed', text: 'One, two, three.' });
  });

  it('every event carries as its id the code points the client holds (astral characters count once)', async () => {
    const who = someone();
    const stream = await replies.start({ ...who, text: 'emoji please' });
    const call = await model.nextCall();
    call.say('Hi 👋🏽 ', 'there 𝄞', ' — ok 🎉');
    call.finish();
    const done = await stream.end();
    expect(stream.events[0]!.id).to.equal('0');
    let held = '';
    for (const event of stream.events.slice(1, -1)) {
      expect(event.event).to.equal('delta');
      held += event.json.text;
      expect(event.id).to.equal(String(codePoints(held)));
    }
    expect(done.id).to.equal(String(codePoints(done.json.response)));
    expect(done.json.response).to.equal('Hi 👋🏽 there 𝄞 — ok 🎉');
  });

  describe('resume', () => {
    it('with Last-Event-ID from the middle gives exactly the missing text, then the live rest', async () => {
      const who = someone();
      const first = await replies.start({ ...who, text: 'a long one' });
      const call = await model.nextCall();
      call.say('Grüße 👋🏽 ', 'aus 𝄞 Köln. ');
      await first.until('aus 𝄞 Köln. ');
      const held = first.text;
      const position = first.position;
      expect(position).to.equal(codePoints(held));
      await first.leave();
      call.say('Said while away 🎉. ');
      await eventually(async () => ((await replies.messages(who.user_id, who.conversation_id)).at(-1).text === call.text ? true : undefined), 'the text said while away to be stored');

      const resumed = await replies.resume(first.events[0]!.json.message_id, who.user_id, { lastEventId: position });
      expect(resumed.events[0]!.id).to.equal(String(position));
      expect(resumed.events[0]!.json).to.deep.equal(first.events[0]!.json);
      const catchUp = await resumed.next();
      expect(catchUp, 'one delta holds everything after the position').to.deep.include({ event: 'delta', json: { text: 'Said while away 🎉. ' } });
      expect(catchUp.id).to.equal(String(codePoints(call.text)));
      call.say('And live ', 'at the end.');
      call.finish();
      const done = await resumed.end();
      expect(done.event).to.equal('done');
      expect(held + resumed.text).to.equal(done.json.response);
      expect(done.json.response).to.equal(call.text);
      expect(done.id).to.equal(String(codePoints(call.text)));
    });

    it('with ?after= too; with neither, from the beginning', async () => {
      const who = someone();
      const first = await replies.start({ ...who, text: 'again' });
      const call = await model.nextCall();
      call.say('𝄞𝄞𝄞 abc');
      await first.until('abc');
      const messageId = first.events[0]!.json.message_id;
      const after = await replies.resume(messageId, who.user_id, { after: 2 });
      const whole = await replies.resume(messageId, who.user_id);
      call.say(' def');
      call.finish();
      const [afterDone, wholeDone, firstDone] = await Promise.all([after.end(), whole.end(), first.end()]);
      expect('𝄞𝄞' + after.text).to.equal(afterDone.json.response);
      expect(whole.text).to.equal(wholeDone.json.response);
      expect(wholeDone.json).to.deep.equal(firstDone.json);
      expect(afterDone.json.response).to.equal('𝄞𝄞𝄞 abc def');
    });

    it('of a finished reply gives the same events and ends at once', async () => {
      const who = someone();
      const first = await replies.start({ ...who, text: 'short' });
      const call = await model.nextCall();
      call.say('Done 👍 already.');
      call.finish();
      const done = await first.end();
      const messageId = done.json.message_id;
      const again = await replies.resume(messageId, who.user_id, { lastEventId: 5 });
      await again.end();
      expect(again.events.map((e) => [e.event, e.id])).to.deep.equal([
        ['start', '5'],
        ['delta', String(codePoints(done.json.response))],
        ['done', String(codePoints(done.json.response))],
      ]);
      expect(again.events[1]!.json.text).to.equal('👍 already.');
      expect(again.events[2]!.json).to.deep.equal(done.json);
      const atEnd = await replies.resume(messageId, who.user_id, { after: codePoints(done.json.response) });
      await atEnd.end();
      expect(atEnd.events.map((e) => e.event)).to.deep.equal(['start', 'done']);
    });

    it('from a position past the end: nothing more to send, and done carries the final total, live or finished', async () => {
      const who = someone();
      const first = await replies.start({ ...who, text: 'overshoot' });
      const call = await model.nextCall();
      call.say('Hello 🌍');
      await first.until('Hello 🌍');
      const messageId = first.events[0]!.json.message_id;
      const live = await replies.resume(messageId, who.user_id, { after: 1000 });
      call.say('!');
      call.finish();
      await first.end();
      await live.end();
      const finished = await replies.resume(messageId, who.user_id, { lastEventId: 1000 });
      await finished.end();
      for (const stream of [live, finished]) {
        expect(stream.events[0]!.id).to.equal('1000');
        expect(stream.events.at(-1)).to.deep.include({ event: 'done', id: String(codePoints('Hello 🌍!')) });
      }
    });

    it('of a reply the model failed ends with an error event carrying the stored detail', async () => {
      const who = someone();
      const first = await replies.start({ ...who, text: 'fail me' });
      const call = await model.nextCall();
      call.say('Half an answer');
      await first.until('Half an answer');
      call.fail(new ChatModelFailedError('the language model answered 503 Service Unavailable'));
      const failed = await first.end();
      expect(failed.event).to.equal('error');
      const again = await replies.resume(first.events[0]!.json.message_id, who.user_id, { after: 5 });
      const end = await again.end();
      expect(again.text).to.equal('an answer');
      expect(end).to.deep.include({ event: 'error', id: String(codePoints('Half an answer')) });
      expect(end.json).to.deep.equal(failed.json);
      const stored = (await replies.messages(who.user_id, who.conversation_id))[1];
      expect(stored).to.include({ status: 'completed', text: 'Half an answer' });
      expect(stored.metadata.finish_reason).to.equal('error');
    });

    it('404 for an unknown message, another user, or a user message; 400 for a malformed position', async () => {
      const who = someone();
      const first = await replies.start({ ...who, text: 'mine' });
      const call = await model.nextCall();
      call.say('Mine.');
      call.finish();
      const done = await first.end();
      for (const [messageId, userId] of [
        [uid('nothing'), who.user_id],
        [done.json.message_id, uid('intruder')],
        [done.json.user_message_id, who.user_id],
      ] as const) {
        const answer = await replies.resumeAnswer(messageId, userId);
        expect(answer.status).to.equal(404);
        expect(answer.json.status).to.equal('error');
      }
      for (const position of [{ lastEventId: 'x' }, { after: '-1' }, { after: '1.5' }]) {
        const malformed = await replies.resumeAnswer(done.json.message_id, who.user_id, position);
        expect(malformed.status, JSON.stringify(position)).to.equal(400);
        expect(malformed.json.status).to.equal('error');
      }
    });
  });

  describe('stop', () => {
    it('from a second connection ends every stream with done "cancelled" and stores the text so far', async () => {
      const who = someone();
      const original = await replies.start({ ...who, text: 'ramble' });
      const call = await model.nextCall();
      call.say('Partial 🎈 ', 'text');
      await original.until('Partial 🎈 text');
      const messageId = original.events[0]!.json.message_id;
      const resumed = await replies.resume(messageId, who.user_id);
      await resumed.until('Partial 🎈 text');
      const stopped = await replies.stop(messageId, who.user_id);
      expect(stopped.status).to.equal(200);
      expect(stopped.json.status).to.equal('ok');
      expect(stopped.json.message).to.include({ message_id: messageId, role: 'assistant', status: 'completed', text: 'Partial 🎈 text' });
      expect(stopped.json.message.metadata.finish_reason).to.equal('cancelled');
      await call.aborted;
      for (const stream of [original, resumed]) {
        const done = await stream.end();
        expect(done.event).to.equal('done');
        expect(done.json).to.include({ finish_reason: 'cancelled', response: 'Partial 🎈 text', message_id: messageId });
        expect(done.id).to.equal(String(codePoints('Partial 🎈 text')));
      }
      const again = await replies.stop(messageId, who.user_id);
      expect(again).to.deep.equal(stopped);
      const stored = await replies.messages(who.user_id, who.conversation_id);
      expect(stored.at(-1)).to.deep.equal(stopped.json.message);
    });

    it('before the first piece removes the reply: message null', async () => {
      const who = someone();
      const original = await replies.start({ ...who, text: 'quiet' });
      const call = await model.nextCall();
      const messageId = original.events[0]!.json.message_id;
      const stopped = await replies.stop(messageId, who.user_id);
      expect(stopped).to.deep.equal({ status: 200, json: { status: 'ok', message: null } });
      expect(call.wasAborted).to.equal(true);
      const done = await original.end();
      expect(done.event).to.equal('done');
      expect(done.json).to.include({ finish_reason: 'cancelled', response: '' });
      expect((await replies.messages(who.user_id, who.conversation_id)).map((m) => m.role)).to.deep.equal(['user']);
      expect((await replies.resumeAnswer(messageId, who.user_id)).status).to.equal(404);
    });

    it('404 for another user, an unknown id, or a user message', async () => {
      const who = someone();
      const original = await replies.start({ ...who, text: 'keep going' });
      const call = await model.nextCall();
      call.say('Still here.');
      await original.until('Still here.');
      const { message_id: messageId, user_message_id: userMessageId } = original.events[0]!.json;
      for (const [id, userId] of [
        [messageId, uid('intruder')],
        [uid('nothing'), who.user_id],
        [userMessageId, who.user_id],
      ] as const) {
        const answer = await replies.stop(id, userId);
        expect(answer.status, `${id} as ${userId}`).to.equal(404);
        expect(answer.json.status).to.equal('error');
      }
      expect(call.wasAborted, 'a refused stop stops nothing').to.equal(false);
      call.finish();
      expect((await original.end()).json.finish_reason).to.equal('stop');
    });
  });

  describe('a repeated message_id', () => {
    it('while its reply is in progress joins it: a streamed repeat gets the reply from its beginning, a plain one waits for it', async () => {
      const who = someone();
      const body = { ...who, text: 'join me' };
      const original = await replies.start(body);
      const call = await model.nextCall();
      call.say('Already ', 'said. ');
      await original.until('Already said. ');
      const joined = await replies.start(body);
      expect(joined.events[0]!.json).to.deep.equal(original.events[0]!.json);
      expect(joined.events[0]!.id).to.equal('0');
      const plain = replies.chat(body);
      await joined.until('Already said. ');
      call.say('Then more.');
      call.finish();
      const [originalDone, joinedDone, answer] = await Promise.all([original.end(), joined.end(), plain]);
      expect(joined.text).to.equal(joinedDone.json.response);
      expect(joinedDone.json).to.deep.equal(originalDone.json);
      expect(answer.status).to.equal(200);
      expect(answer.json).to.include({ response: 'Already said. Then more.', message_id: originalDone.json.message_id, user_message_id: who.message_id, finish_reason: 'stop' });
      expect(model.calls.filter((c) => c.request.text === 'join me')).to.have.length(1);
      expect((await replies.messages(who.user_id, who.conversation_id)).map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    });

    it('whose reply was cut short asks the model again, and the new reply replaces the old', async () => {
      const who = someone();
      const body = { ...who, text: 'try again' };
      const first = await replies.start(body);
      const firstCall = await model.nextCall();
      firstCall.say('Cut ');
      await first.until('Cut ');
      const firstId = first.events[0]!.json.message_id;
      await replies.stop(firstId, who.user_id);
      expect((await first.end()).json.finish_reason).to.equal('cancelled');

      const streamed = await replies.start(body);
      const secondCall = await model.nextCall();
      expect(streamed.events[0]!.json.message_id).to.not.equal(firstId);
      secondCall.say('A whole answer.');
      secondCall.finish();
      expect((await streamed.end()).json).to.include({ response: 'A whole answer.', finish_reason: 'stop' });
      const stored = await replies.messages(who.user_id, who.conversation_id);
      expect(stored.map((m) => [m.role, m.text, m.metadata.finish_reason ?? null])).to.deep.equal([
        ['user', 'try again', null],
        ['assistant', 'A whole answer.', 'stop'],
      ]);
      expect((await replies.resumeAnswer(firstId, who.user_id)).status, 'the replaced reply is gone').to.equal(404);
    });

    it('repeated by several requests at once after it was cut short: the model is asked once, and all of them get that reply', async () => {
      const who = someone();
      const body = { ...who, text: 'all at once' };
      const first = await replies.start(body);
      const firstCall = await model.nextCall();
      firstCall.say('Cut');
      await first.until('Cut');
      await replies.stop(first.events[0]!.json.message_id, who.user_id);
      await first.end();
      const callsBefore = model.calls.length;
      const repeats = await Promise.all([replies.start(body), replies.start(body), replies.start(body), replies.start(body)]);
      const again = await model.nextCall();
      again.say('Once ', 'for all.');
      again.finish();
      const ends = await Promise.all(repeats.map((stream) => stream.end()));
      expect(model.calls.length - callsBefore).to.equal(1);
      expect(new Set(repeats.map((stream) => stream.events[0]!.json.message_id)).size).to.equal(1);
      for (const [index, stream] of repeats.entries()) {
        expect(stream.text).to.equal('Once for all.');
        expect(ends[index]!.json).to.include({ response: 'Once for all.', finish_reason: 'stop' });
      }
      expect((await replies.messages(who.user_id, who.conversation_id)).map((m) => m.text)).to.deep.equal(['all at once', 'Once for all.']);
    });

    it('through POST /v1/chat, a reply cut short is asked for again too', async () => {
      const who = someone();
      const body = { ...who, text: 'plainly' };
      const first = await replies.start(body);
      const firstCall = await model.nextCall();
      firstCall.say('Half');
      await first.until('Half');
      await replies.stop(first.events[0]!.json.message_id, who.user_id);
      await first.end();
      const plain = replies.chat(body);
      const secondCall = await model.nextCall();
      secondCall.say('Whole.');
      secondCall.finish();
      const answer = await plain;
      expect(answer.status).to.equal(200);
      expect(answer.json).to.include({ response: 'Whole.', finish_reason: 'stop' });
      const stored = await replies.messages(who.user_id, who.conversation_id);
      expect(stored.map((m) => m.text)).to.deep.equal(['plainly', 'Whole.']);
    });
  });

  describe('with STREAM_ON_DISCONNECT=cancel', () => {
    let cancelling: TestService;
    const cancelModel = new ScriptedChatModel();
    before(async () => {
      cancelling = await start({ STREAM_ON_DISCONNECT: 'cancel', SHUTDOWN_TIMEOUT_MS: '1000' }, { chatModel: cancelModel });
    });
    after(() => cancelling.stop());

    it('a client that disconnects stops the model; the partial reply is stored as cancelled', async () => {
      const who = someone();
      const client = replyClient(cancelling.url);
      const stream = await client.start({ ...who, text: 'bye' });
      const call = await cancelModel.nextCall();
      call.say('Only this 🙂');
      await stream.until('Only this 🙂');
      await stream.leave();
      await call.aborted;
      const reply = await eventually(async () => (await client.messages(who.user_id, who.conversation_id)).find((m) => m.role === 'assistant' && m.status === 'completed'), 'the partial reply to be stored');
      expect(reply.text).to.equal('Only this 🙂');
      expect(reply.metadata.finish_reason).to.equal('cancelled');
    });

    it('a listener that resumes and leaves does not stop the reply (only its starter does)', async () => {
      const who = someone();
      const client = replyClient(cancelling.url);
      const stream = await client.start({ ...who, text: 'stay' });
      const call = await cancelModel.nextCall();
      call.say('Going ');
      const resumed = await client.resume(stream.events[0]!.json.message_id, who.user_id);
      await resumed.until('Going ');
      await resumed.leave();
      call.say('on.');
      call.finish();
      expect((await stream.end()).json).to.include({ response: 'Going on.', finish_reason: 'stop' });
      expect(call.wasAborted).to.equal(false);
    });
  });

  describe('the AI SDK resume endpoint (GET /v1/chat/stream/{conversation_id}/stream)', () => {
    const chatFor = (userId: string, conversationId: string) =>
      new PlainChat(`${service.url}/v1/chat/stream`, userId, conversationId);

    it("204 when no reply of the conversation is in progress: the SDK's Chat resumes nothing", async () => {
      const who = someone();
      const idle = await documentedFetch(`${service.url}/v1/chat/stream/${who.conversation_id}/stream?user_id=${who.user_id}`);
      expect(idle.status).to.equal(204);
      const first = await replies.start({ ...who, text: 'hello' });
      const call = await model.nextCall();
      call.say('Hi.');
      call.finish();
      await first.end();
      const chat = chatFor(who.user_id, who.conversation_id);
      await chat.resumeStream();
      expect(chat.messages).to.deep.equal([]);
      expect(chat.status).to.equal('ready');
    });

    it("a reply in progress: the SDK's own transport reads its UI message stream from the beginning to the end", async () => {
      // A conversation id with characters that need escaping in a path.
      const who = { ...someone(), conversation_id: `chat/${uid('c')} #1? 💬` };
      const original = await replies.start({ ...who, text: 'resume me' });
      const call = await model.nextCall();
      call.say('Before 🌅 the reload. ');
      await original.until('the reload. ');
      const chat = chatFor(who.user_id, who.conversation_id);
      const chunks: UIMessageChunk[] = [];
      const transport = transportFor(`${service.url}/v1/chat/stream`, who.user_id);
      const reconnected = await transport.reconnectToStream({ chatId: who.conversation_id });
      expect(reconnected).to.not.equal(null);
      const reading = (async () => {
        for await (const chunk of reconnected!) chunks.push(chunk);
      })();
      const resuming = chat.resumeStream();
      // Both readers hold the reply's beginning before it ends (else theirs would be a 204).
      await eventually(async () => (chunks.some((c) => c.type === 'text-delta') ? true : undefined), 'the first text chunk');
      await eventually(async () => (textOf(chat.messages[0]).startsWith('Before') ? true : undefined), "the chat's first text");
      call.say('After ', 'it.');
      call.finish();
      await Promise.all([resuming, reading, original.end()]);
      const messageId = original.events[0]!.json.message_id;
      expect(chat.error).to.equal(undefined);
      expect(chat.messages).to.have.length(1);
      expect(chat.messages[0]).to.deep.include({ id: messageId, role: 'assistant' });
      expect(textOf(chat.messages[0])).to.equal('Before 🌅 the reload. After it.');
      expect(chat.messages[0]!.metadata).to.deep.include({ conversation_id: who.conversation_id, message_id: messageId, finish_reason: 'stop' });
      const types = chunks.map((c) => c.type);
      expect(types.slice(0, 2)).to.deep.equal(['start', 'text-start']);
      expect(types.slice(-2)).to.deep.equal(['text-end', 'finish']);
      expect(chunks.map((c) => (c.type === 'text-delta' ? c.delta : '')).join('')).to.equal('Before 🌅 the reload. After it.');
    });

    it("404 for another user's conversation", async () => {
      const who = someone();
      const first = await replies.start({ ...who, text: 'private' });
      const call = await model.nextCall();
      call.say('Secret.');
      const intruder = await documentedFetch(`${service.url}/v1/chat/stream/${who.conversation_id}/stream?user_id=${uid('intruder')}`);
      expect(intruder.status).to.equal(404);
      call.finish();
      await first.end();
    });
  });

  describe('a shutdown that outlasts SHUTDOWN_TIMEOUT_MS', () => {
    it('stores every reply still running as interrupted and ends its open streams with an error event', async () => {
      const store = await lastingStore();
      try {
        const shutdownModel = new ScriptedChatModel();
        const doomed = await start({ SHUTDOWN_TIMEOUT_MS: '300' }, { ...store.overrides, chatModel: shutdownModel });
        const client = replyClient(doomed.url);
        const [listened, left] = [someone(), someone()];
        const stream = await client.start({ ...listened, text: 'long answer' });
        const listenedCall = await shutdownModel.nextCall();
        const leaving = await client.start({ ...left, text: 'long answer too' });
        const leftCall = await shutdownModel.nextCall();
        listenedCall.say('Cut off 🛑 ', 'here');
        leftCall.say('Nobody listens');
        await stream.until('Cut off 🛑 here');
        await leaving.until('Nobody listens');
        await leaving.leave();
        const stopping = doomed.stop();
        await Promise.all([listenedCall.aborted, leftCall.aborted]);
        const end = await stream.end();
        expect(end.event).to.equal('error');
        expect(end.json.status).to.equal('error');
        expect(end.json.detail).to.be.a('string').and.not.equal('');
        expect(end.id).to.equal(String(codePoints('Cut off 🛑 here')));
        await stopping;
        for (const [who, text] of [
          [listened, 'Cut off 🛑 here'],
          [left, 'Nobody listens'],
        ] as const) {
          const stored = await store.messages(who.user_id, who.conversation_id);
          expect(stored.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
          expect(stored[1]).to.include({ status: 'completed', text });
          expect(stored[1]!.metadata.finish_reason).to.equal('interrupted');
        }
      } finally {
        await store.close();
      }
    });
  });
}
