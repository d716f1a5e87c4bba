import { expect } from 'chai';
import OpenAI from 'openai';
import { uid } from '../support/ids.js';
import type { IdentityTestService } from '../support/identity-service.js';
import { eventually } from '../support/reply-client.js';
import { EventReader, expectNumbering, expectWholeStream, textOf, type StreamEvent } from '../support/response-events.js';
import { expectStatus, failure, responsesClient } from '../support/responses-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import type { AdapterOverrides } from '../../src/bootstrap/tokens.js';
import { ChatModelFailedError } from '../../src/domain/errors.js';
import type { CallOptions, TestService } from '../support/service.js';

/**
 * OpenAI's Responses API, driven by OpenAI's own SDK (the `openai` package) against the running
 * service: the contract's "OpenAI's Responses and Conversations APIs". The model is scripted, so
 * each test says what it answers, piece by piece.
 */
export type StartService = (environment: Record<string, string>, overrides: AdapterOverrides) => Promise<TestService>;

export function openAiResponsesSuite(start: StartService): void {
  describe("OpenAI's Responses API, through the official SDK", () => {
    const model = new ScriptedChatModel();
    let service: TestService;
    before(async () => {
      service = await start({ STREAM_WRITE_INTERVAL_MS: '20' }, { chatModel: model });
    });
    after(() => service?.stop()); // unset when the store's suite was skipped (no PostgreSQL here)
    beforeEach(() => model.forgetCalls());

    const clientOf = (user = uid('u')) => responsesClient(service, user);
    /** A request without the credential a test client adds (identity on) or with the headers given. */
    const bare = (method: string, path: string, options: CallOptions = {}) =>
      'bare' in service ? (service as IdentityTestService).bare(method, path, options) : service.call(method, path, options);
    /** Answers the next model call with `pieces`, then finishes. */
    const answer = async (...pieces: string[]) => {
      const call = await model.nextCall();
      call.say(...pieces).finish();
      return call;
    };
    /** A response created (not streamed) while the model answers with `pieces`. */
    const created = async (client: OpenAI, params: OpenAI.Responses.ResponseCreateParamsNonStreaming, ...pieces: string[]) => {
      const pending = client.responses.create(params);
      const call = await answer(...pieces);
      return { response: await pending, call };
    };

    describe('create', () => {
      it('answers the finished response; the question and the reply are the native conversation', async () => {
        const user = uid('alice');
        const client = await clientOf(user);
        const { response, call } = await created(client, { model: 'gpt-test', input: 'Hello there' }, 'Hi, ', 'I am Aria.');
        expect(call.request.text).to.equal('Hello there');
        expect(response).to.include({ object: 'response', status: 'completed', model: 'scripted-1', output_text: 'Hi, I am Aria.', previous_response_id: null, instructions: null, background: false, error: null, incomplete_details: null });
        expect(response.output).to.deep.equal([{ type: 'message', id: response.id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi, I am Aria.', annotations: [], logprobs: [] }] }]);
        expect(response.usage?.output_tokens).to.be.greaterThan(0);
        expect(response.usage?.total_tokens).to.equal(response.usage!.input_tokens + response.usage!.output_tokens);
        expect(response.created_at).to.be.closeTo(Date.now() / 1000, 60);
        const conversationId = response.conversation!.id;
        const native = await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: conversationId });
        expect(native.json.messages.map((m: { role: string; text: string }) => [m.role, m.text])).to.deep.equal([['user', 'Hello there'], ['assistant', 'Hi, I am Aria.']]);
        expect(native.json.messages[1].message_id).to.equal(response.id);
        expect(native.json.head_id).to.equal(response.id);
      });

      it('streams every event in order, one delta per piece, numbered from the text, adding up to the text; a replay numbers them alike', async () => {
        const client = await clientOf();
        const stream = await client.responses.create({ model: 'gpt-test', input: 'Say something', stream: true });
        const reader = new EventReader(stream);
        const call = await model.nextCall();
        const opening = await reader.take(2);
        expect(opening[0]).to.include({ type: 'response.created', sequence_number: 0 });
        const created = opening[0] as OpenAI.Responses.ResponseCreatedEvent;
        expect(created.response).to.include({ status: 'in_progress', object: 'response' });
        expect(created.response.output).to.deep.equal([]);
        // The message item is announced with the first piece, as OpenAI's are (not before: the reply may never get one).
        expect(await reader.nothingWithin(200), 'an event before the first piece').to.equal(true);
        // Each piece arrives as its own delta before the next is said.
        for (const [index, piece] of ['Hel', 'lo, ', 'wörld 🌍', '!'].entries()) {
          call.say(piece);
          if (index === 0) expect((await reader.take(2)).map((e) => e.type)).to.deep.equal(['response.output_item.added', 'response.content_part.added']);
          const delta = await reader.next();
          expect(delta).to.include({ type: 'response.output_text.delta', delta: piece, item_id: created.response.id, output_index: 0, content_index: 0 });
        }
        call.finish();
        const events = await reader.rest();
        expect(expectWholeStream(events)).to.equal('Hello, wörld 🌍!');
        // 'Hello, wörld 🌍!' is 15 code points: the closing events are numbered 19..22.
        expect(events.slice(-4).map((e) => e.sequence_number)).to.deep.equal([19, 20, 21, 22]);
        const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
        expect(completed.response).to.include({ status: 'completed', id: created.response.id });
        expect(completed.response.usage?.total_tokens).to.be.greaterThan(0);

        const replay = await new EventReader(await client.responses.retrieve(created.response.id, { stream: true })).rest();
        expect(expectWholeStream(replay)).to.equal('Hello, wörld 🌍!');
        expect(replay.slice(-4).map((e) => e.sequence_number)).to.deep.equal([19, 20, 21, 22]);
        const after = await new EventReader(await client.responses.retrieve(created.response.id, { stream: true, starting_after: 9 })).rest();
        // Event 9 is the delta that brought the text to 6 code points ('Hello,'): the rest follows in one delta.
        expect(after[0]).to.include({ type: 'response.output_text.delta', delta: ' wörld 🌍!', sequence_number: 18 });
        expect(after.map((e) => e.sequence_number)).to.deep.equal([18, 19, 20, 21, 22]);
        const last = await new EventReader(await client.responses.retrieve(created.response.id, { stream: true, starting_after: 21 })).rest();
        expect(last.map((e) => e.type)).to.deep.equal(['response.completed']);
      });

      it("the SDK's stream helper builds the final response from the events, and resumes one by its id", async () => {
        const client = await clientOf();
        const runner = client.responses.stream({ model: 'm', input: 'Help me' });
        (await model.nextCall()).say('With ', 'pleasure.').finish();
        const final = await runner.finalResponse();
        expect(final).to.include({ status: 'completed', output_text: 'With pleasure.' });
        const deltas: string[] = [];
        const resumed = client.responses.stream({ response_id: final.id, starting_after: 3 });
        resumed.on('response.output_text.delta', (event) => deltas.push(event.delta));
        expect((await resumed.finalResponse()).output_text).to.equal('With pleasure.');
        expect(deltas.join('')).to.equal('With pleasure.');
      });

      it('ends a stream with response.failed when the model fails, keeping the text so far', async () => {
        const client = await clientOf();
        const reader = new EventReader(await client.responses.create({ model: 'm', input: 'Fail, please', stream: true }));
        const call = await model.nextCall();
        call.say('Half ');
        call.fail(new Error('boom'));
        const events = await reader.rest();
        expectWholeStream(events, 'response.failed');
        const failed = events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
        expect(failed.response.status).to.equal('failed');
        expect(failed.response.error?.code).to.equal('server_error');
        expect((await client.responses.retrieve(failed.response.id)).output_text).to.equal('Half ');
      });

      it('a stream whose model fails before its first piece announces no output item: the SDK builds what the response holds, and a replay sends the same events', async () => {
        const client = await clientOf();
        const runner = client.responses.stream({ model: 'm', input: 'Fail at once, streamed' });
        const seen: StreamEvent[] = [];
        runner.on('event', (event) => seen.push(event));
        // What a client shows while the response is written: no item the final response will not hold.
        const announced: unknown[] = [];
        runner.on('response.output_item.added', (event) => announced.push(event.item.id));
        (await model.nextCall()).fail(new ChatModelFailedError('the language model is unavailable'));
        const built = await runner.finalResponse();
        expect(built).to.include({ status: 'failed', output_text: '' });
        expect(built.output).to.deep.equal([]);
        expect(announced).to.deep.equal([]);
        expect(expectWholeStream(seen, 'response.failed')).to.equal('');
        expect(seen.map((e) => e.sequence_number)).to.deep.equal([0, 1, 2]);
        const failed = seen.at(-1) as OpenAI.Responses.ResponseFailedEvent;
        expect(failed.response.error).to.deep.equal({ code: 'server_error', message: 'the language model is unavailable' });
        expect((await client.responses.retrieve(built.id)).output).to.deep.equal([]);
        const replay = await new EventReader(await client.responses.retrieve(built.id, { stream: true })).rest();
        expect(replay.map((e) => [e.type, e.sequence_number])).to.deep.equal(seen.map((e) => [e.type, e.sequence_number]));
        expect((replay.at(-1) as OpenAI.Responses.ResponseFailedEvent).response.output).to.deep.equal([]);
        const after = await new EventReader(await client.responses.retrieve(built.id, { stream: true, starting_after: 1 })).rest();
        expect(after.map((e) => [e.type, e.sequence_number])).to.deep.equal([['response.failed', 2]]);
      });

      it('with previous_response_id twice from one response makes two branches whose model contexts do not mix', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const { response: first } = await created(client, { model: 'm', input: 'Plan a trip to Rome' }, 'Rome is lovely.');
        const { response: food, call: foodCall } = await created(client, { model: 'm', input: 'What about food?', previous_response_id: first.id }, 'Pasta.');
        const { response: art, call: artCall } = await created(client, { model: 'm', input: 'What about museums?', previous_response_id: first.id }, 'The Vatican.');
        const trunk = [
          { role: 'user', text: 'Plan a trip to Rome' },
          { role: 'assistant', text: 'Rome is lovely.' },
        ];
        expect(foodCall.request.history).to.deep.equal(trunk);
        expect(artCall.request.history).to.deep.equal(trunk);
        expect(artCall.request.text).to.equal('What about museums?');
        const { call: wineCall } = await created(client, { model: 'm', input: 'And wine?', previous_response_id: food.id }, 'Chianti.');
        expect(wineCall.request.history).to.deep.equal([...trunk, { role: 'user', text: 'What about food?' }, { role: 'assistant', text: 'Pasta.' }]);
        const { call: againCall } = await created(client, { model: 'm', input: 'Which one?', previous_response_id: art.id }, 'The Pietà.');
        expect(againCall.request.history.map((t) => t.text)).to.deep.equal(['Plan a trip to Rome', 'Rome is lovely.', 'What about museums?', 'The Vatican.']);
        for (const response of [food, art]) expect(response).to.include({ previous_response_id: first.id });
        expect(new Set([first, food, art].map((r) => r.conversation?.id)).size).to.equal(1);
        // The two questions are siblings in the native tree.
        const page = await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: first.conversation!.id, leaf_id: art.id });
        const museums = page.json.messages.find((m: { text: string }) => m.text === 'What about museums?');
        expect(museums.siblings).to.include({ count: 2, index: 1 });
      });

      it('adds instructions to the system prompt for that response only, keeps them on it, and stores no message of them', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const { response, call } = await created(client, { model: 'm', input: 'Hello', instructions: 'Answer in French.' }, 'Bonjour.');
        expect(call.request.instructions).to.equal('Answer in French.');
        expect(response.instructions).to.equal('Answer in French.');
        expect((await client.responses.retrieve(response.id)).instructions).to.equal('Answer in French.');
        const { response: next, call: nextCall } = await created(client, { model: 'm', input: 'Again', previous_response_id: response.id }, 'Hello again.');
        expect(nextCall.request.instructions).to.equal(undefined);
        expect(next.instructions).to.equal(null);
        const native = await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: response.conversation!.id });
        expect(native.json.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Hello', 'Bonjour.', 'Again', 'Hello again.']);
      });

      it('stores message items before the reply, in order; the model reads them; input_items lists them', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const input: OpenAI.Responses.ResponseInput = [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: 'What is 2 + 2?' },
          { role: 'assistant', content: [{ type: 'output_text', text: 'Four.', annotations: [] }] as never },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And 3 + 3?' }] },
        ];
        const { response, call } = await created(client, { model: 'm', input, metadata: { topic: 'sums' }, temperature: 0.2, max_output_tokens: 50 }, 'Six.');
        expect(call.request.history).to.deep.equal([
          { role: 'system', text: 'Be brief.' },
          { role: 'user', text: 'What is 2 + 2?' },
          { role: 'assistant', text: 'Four.' },
        ]);
        expect(call.request).to.include({ text: 'And 3 + 3?', temperature: 0.2, maxOutputTokens: 50 });
        expect(response).to.include({ temperature: 0.2, max_output_tokens: 50 });
        expect(response.metadata).to.deep.equal({ topic: 'sums' });
        const items = await client.responses.inputItems.list(response.id, { order: 'asc' });
        expect(items.data.map((i) => (i.type === 'message' ? [i.role, i.content.map((c) => ('text' in c ? c.text : '')).join('')] : []))).to.deep.equal([
          ['developer', 'Be brief.'],
          ['user', 'What is 2 + 2?'],
          ['assistant', 'Four.'],
          ['user', 'And 3 + 3?'],
        ]);
        const newestFirst = await client.responses.inputItems.list(response.id, { limit: 2 });
        expect(newestFirst.data.map((i) => i.id)).to.deep.equal([items.data[3]!.id, items.data[2]!.id]);
        expect(newestFirst.has_more).to.equal(true);
        const next = await client.responses.inputItems.list(response.id, { limit: 2, after: items.data[2]!.id });
        expect(next.data.map((i) => i.id)).to.deep.equal([items.data[1]!.id, items.data[0]!.id]);
        expect(next.has_more).to.equal(false);
      });

      it('adds the turn after the head of `conversation`, whichever API made it', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const chatting = service.post('/v1/chat', { user_id: user, text: 'Native question' });
        await answer('Native answer.');
        const native = (await chatting).json;
        // The native reply is a response too.
        const asResponse = await client.responses.retrieve(native.message_id);
        expect(asResponse).to.include({ status: 'completed', output_text: 'Native answer.' });
        expect(asResponse.conversation?.id).to.equal(native.conversation_id);
        expect((await client.responses.inputItems.list(native.message_id)).data.map((i) => i.id)).to.deep.equal([native.user_message_id]);
        const { response, call } = await created(client, { model: 'm', input: 'Follow-up', conversation: native.conversation_id }, 'Sure.');
        expect(call.request.history.map((t) => t.text)).to.deep.equal(['Native question', 'Native answer.']);
        expect(response.conversation?.id).to.equal(native.conversation_id);
        const { response: byObject } = await created(client, { model: 'm', input: 'More', conversation: { id: native.conversation_id } }, 'Yes.');
        const page = await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: native.conversation_id });
        expect(page.json.messages.map((m: { text: string }) => m.text)).to.deep.equal(['Native question', 'Native answer.', 'Follow-up', 'Sure.', 'More', 'Yes.']);
        expect(page.json.head_id).to.equal(byObject.id);
      });

      it('with max_output_tokens cut by the model: incomplete, saying why', async () => {
        const client = await clientOf();
        const pending = client.responses.create({ model: 'm', input: 'Talk at length', max_output_tokens: 16 });
        (await model.nextCall()).say('Cut off').finish('length');
        const response = await pending;
        expect(response).to.include({ status: 'incomplete', output_text: 'Cut off' });
        expect(response.incomplete_details).to.deep.equal({ reason: 'max_output_tokens' });
      });

      it('with store: false keeps nothing, yet reads the history it names', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const { response: first } = await created(client, { model: 'm', input: 'Remember: blue' }, 'Noted.');
        const { response, call } = await created(client, { model: 'm', input: 'Which colour?', previous_response_id: first.id, store: false }, 'Blue.');
        expect(call.request.history.map((t) => t.text)).to.deep.equal(['Remember: blue', 'Noted.']);
        expect(response).to.include({ status: 'completed', output_text: 'Blue.', store: false, conversation: null, previous_response_id: first.id });
        await expectStatus(client.responses.retrieve(response.id), 404);
        const items = await client.conversations.items.list(first.conversation!.id);
        expect(items.data).to.have.length(2);
        const stream = await client.responses.create({ model: 'm', input: 'Stream it', store: false, stream: true });
        (await model.nextCall()).say('Not ', 'kept.').finish();
        const events = await new EventReader(stream).rest();
        expect(expectWholeStream(events)).to.equal('Not kept.');
        await expectStatus(client.responses.retrieve(events[0]!.type === 'response.created' ? events[0].response.id : ''), 404);
        const listed = await service.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(user)}`);
        expect(listed.json.conversations).to.have.length(1);
      });

      it('with store: false, a stream whose model fails before its first piece announces no output item either', async () => {
        const client = await clientOf();
        const reader = new EventReader(await client.responses.create({ model: 'm', input: 'Fail, unkept', store: false, stream: true }));
        (await model.nextCall()).fail(new ChatModelFailedError('the language model is unavailable'));
        const events = await reader.rest();
        expect(expectWholeStream(events, 'response.failed')).to.equal('');
        expect((events.at(-1) as OpenAI.Responses.ResponseFailedEvent).response).to.deep.include({ status: 'failed', output: [], store: false });
      });
    });

    describe('background, retrieve, cancel, delete', () => {
      it('answers at once; retrieve shows the text so far, then the end; a stream from starting_after loses and repeats nothing', async () => {
        const client = await clientOf();
        const pending = client.responses.create({ model: 'm', input: 'Take your time', background: true });
        const call = await model.nextCall();
        const response = await pending;
        expect(response).to.include({ status: 'in_progress', background: true });
        call.say('One, ');
        await eventually(async () => ((await client.responses.retrieve(response.id)).output_text === 'One, ' ? true : undefined), 'the first piece stored');
        const first = new EventReader(await client.responses.retrieve(response.id, { stream: true }));
        await first.take(5);
        expect(first.text).to.equal('One, ');
        const held = first.events.at(-1)!.sequence_number;
        const resumed = new EventReader(await client.responses.retrieve(response.id, { stream: true, starting_after: held }));
        call.say('two, ', 'three.');
        call.finish();
        const rest = await resumed.rest();
        expect(rest[0]!.sequence_number).to.be.greaterThan(held);
        expectNumbering(rest, 5);
        expect(first.text + textOf(rest)).to.equal('One, two, three.');
        expect(rest.at(-1)!.type).to.equal('response.completed');
        expect(expectWholeStream(await first.rest())).to.equal('One, two, three.');
        const done = await client.responses.retrieve(response.id);
        expect(done).to.include({ status: 'completed', output_text: 'One, two, three.', background: true });
      });

      it('cancel stops it, keeping the text so far; cancelling again changes nothing; open streams end', async () => {
        const client = await clientOf();
        const pending = client.responses.create({ model: 'm', input: 'Go on and on', background: true });
        const call = await model.nextCall();
        const response = await pending;
        call.say('So far ');
        const reader = new EventReader(await client.responses.retrieve(response.id, { stream: true }));
        await reader.take(5);
        const cancelled = await client.responses.cancel(response.id);
        expect(cancelled.status).to.equal('cancelled');
        expect(cancelled.output[0]).to.deep.include({ content: [{ type: 'output_text', text: 'So far ', annotations: [], logprobs: [] }], status: 'incomplete' });
        await call.aborted;
        const events = await reader.rest();
        expect(events.at(-1)!.type).to.equal('response.incomplete');
        expect((events.at(-1) as OpenAI.Responses.ResponseIncompleteEvent).response.status).to.equal('cancelled');
        expect(reader.text).to.equal('So far ');
        expect((await client.responses.cancel(response.id)).status).to.equal('cancelled');
        expect(await client.responses.retrieve(response.id)).to.include({ status: 'cancelled', output_text: 'So far ' });
      });

      it('one that fails before its first piece is found afterwards as failed, with its error, on every path; delete removes it', async () => {
        const client = await clientOf();
        const pending = client.responses.create({ model: 'm', input: 'Fail at once', background: true, metadata: { k: 'v' } });
        const call = await model.nextCall();
        const response = await pending;
        call.fail(new ChatModelFailedError('the language model is unavailable'));
        const ended = await eventually(async () => {
          const found = await client.responses.retrieve(response.id);
          return found.status === 'failed' ? found : undefined;
        }, 'the failure stored');
        expect(ended).to.include({ id: response.id, output_text: '', background: true });
        expect(ended.error).to.deep.equal({ code: 'server_error', message: 'the language model is unavailable' });
        expect(ended.usage).to.equal(null); // nothing written, nothing counted: as the usage counts it
        expect(ended.metadata).to.deep.equal({ k: 'v' });
        expect(ended.conversation?.id).to.equal(response.conversation!.id);
        const events = await new EventReader(await client.responses.retrieve(response.id, { stream: true })).rest();
        expect(expectWholeStream(events, 'response.failed')).to.equal('');
        expect((events.at(-1) as OpenAI.Responses.ResponseFailedEvent).response.error?.message).to.equal('the language model is unavailable');
        expect((await client.responses.cancel(response.id)).status).to.equal('failed');
        const inputs = await client.responses.inputItems.list(response.id);
        expect(inputs.data.map((i) => (i.type === 'message' ? i.content : null))).to.deep.equal([[{ type: 'input_text', text: 'Fail at once' }]]);
        const deleted = await client.responses.delete(response.id);
        expect(deleted).to.deep.include({ id: response.id, deleted: true });
        await expectStatus(client.responses.retrieve(response.id), 404);
        await expectStatus(client.responses.delete(response.id), 404);
      });

      it('one cancelled before its first piece is answered cancelled, and found afterwards as cancelled', async () => {
        const client = await clientOf();
        const pending = client.responses.create({ model: 'm', input: 'Never mind', background: true });
        const call = await model.nextCall();
        const response = await pending;
        expect((await client.responses.cancel(response.id)).status).to.equal('cancelled');
        await call.aborted;
        const found = await eventually(async () => {
          const retrieved = await client.responses.retrieve(response.id);
          return retrieved.status === 'cancelled' ? retrieved : undefined;
        }, 'the cancellation stored');
        expect(found).to.include({ output_text: '', error: null });
        expect(found.output).to.deep.equal([]);
        const intruder = await clientOf();
        await expectStatus(intruder.responses.retrieve(response.id), 404);
        await expectStatus(intruder.responses.delete(response.id), 404);
      });

      it('a streamed one cancelled before its first piece ends right after response.in_progress, announcing no item; a replay sends the same events', async () => {
        const client = await clientOf();
        const reader = new EventReader(await client.responses.create({ model: 'm', input: 'Never mind, streamed', stream: true, background: true }));
        const call = await model.nextCall();
        const created = (await reader.next()) as OpenAI.Responses.ResponseCreatedEvent;
        expect((await client.responses.cancel(created.response.id)).output).to.deep.equal([]);
        await call.aborted;
        const events = await reader.rest();
        expect(expectWholeStream(events, 'response.incomplete')).to.equal('');
        expect((events.at(-1) as OpenAI.Responses.ResponseIncompleteEvent).response).to.deep.include({ status: 'cancelled', output: [] });
        const replay = await new EventReader(await client.responses.retrieve(created.response.id, { stream: true })).rest();
        expect(replay.map((e) => [e.type, e.sequence_number])).to.deep.equal(events.map((e) => [e.type, e.sequence_number]));
        expect(await client.responses.retrieve(created.response.id)).to.deep.include({ status: 'cancelled', output: [] });
      });

      it('delete removes the reply (the question stays); it is then not found', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const { response } = await created(client, { model: 'm', input: 'Short-lived' }, 'Gone soon.');
        await client.responses.delete(response.id);
        await expectStatus(client.responses.retrieve(response.id), 404);
        await expectStatus(client.responses.delete(response.id), 404);
        const items = await client.conversations.items.list(response.conversation!.id);
        expect(items.data.map((i) => (i.type === 'message' ? i.role : ''))).to.deep.equal(['user']);
      });

      it('delete answers OpenAI\'s deleted object', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const { response } = await created(client, { model: 'm', input: 'Delete me' }, 'OK.');
        const answer = await client.delete(`/responses/${response.id}`);
        expect(answer).to.deep.equal({ id: response.id, object: 'response', deleted: true });
      });
    });

    describe('who, and errors in OpenAI\'s shape', () => {
      it("another user's response or conversation is not found (404), on every path", async () => {
        const alice = await clientOf(uid('alice'));
        const bob = await clientOf(uid('bob'));
        const { response } = await created(alice, { model: 'm', input: 'Mine' }, 'Yours.');
        const conversationId = response.conversation!.id;
        const attempts: (() => Promise<unknown>)[] = [
          () => bob.responses.retrieve(response.id),
          () => bob.responses.cancel(response.id),
          () => bob.responses.delete(response.id),
          () => bob.responses.inputItems.list(response.id),
          () => bob.responses.create({ model: 'm', input: 'Hi', previous_response_id: response.id }),
          () => bob.responses.create({ model: 'm', input: 'Hi', conversation: conversationId }),
          () => bob.conversations.retrieve(conversationId),
          () => bob.conversations.update(conversationId, { metadata: { a: 'b' } }),
          () => bob.conversations.delete(conversationId),
          () => bob.conversations.items.list(conversationId),
          () => bob.conversations.items.create(conversationId, { items: [{ role: 'user', content: 'x' }] }),
          () => bob.conversations.items.retrieve(response.id, { conversation_id: conversationId }),
        ];
        for (const attempt of attempts) await expectStatus(attempt(), 404);
        const error = await failure(bob.responses.create({ model: 'm', input: 'Hi', previous_response_id: response.id }));
        expect(error.param).to.equal('previous_response_id');
        expect(error.type).to.equal('invalid_request_error');
        const inConversation = await failure(bob.responses.create({ model: 'm', input: 'Hi', conversation: conversationId }));
        expect(inConversation).to.include({ param: 'conversation', code: 'conversation_not_found' });
        expect((await alice.responses.retrieve(response.id)).output_text).to.equal('Yours.');
        expect(model.calls.filter((c) => c.request.text === 'Hi')).to.have.length(0);
      });

      it('unsupported input parts and items are 400 naming them in param; nothing is stored or asked', async () => {
        const user = uid('u');
        const client = await clientOf(user);
        const image = await failure(
          client.responses.create({ model: 'm', input: [{ role: 'user', content: [{ type: 'input_text', text: 'Look' }, { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }] }] }),
        );
        expect(image).to.include({ status: 400, param: 'input[0].content[1]', type: 'invalid_request_error' });
        expect(image.message).to.include('input_image');
        const file = await failure(client.responses.create({ model: 'm', input: [{ role: 'user', content: 'a' }, { role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }));
        expect(file).to.include({ status: 400, param: 'input[1].content[0]' });
        expect(file.message).to.include('input_file');
        const item = await failure(client.responses.create({ model: 'm', input: [{ type: 'function_call_output', call_id: 'c', output: '{}' }, { role: 'user', content: 'x' }] }));
        expect(item).to.include({ status: 400, param: 'input[0]' });
        expect(item.message).to.include('function_call_output');
        const tools = await failure(client.responses.create({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'f', parameters: {}, strict: true }] }));
        expect(tools).to.include({ status: 400, param: 'tools' });
        const both = await failure(client.responses.create({ model: 'm', input: 'x', conversation: 'c', previous_response_id: 'r' }));
        expect(both).to.include({ status: 400, param: 'conversation' });
        const background = await failure(client.responses.create({ model: 'm', input: 'x', background: true, store: false }));
        expect(background).to.include({ status: 400, param: 'background' });
        const missing = await failure(client.responses.create({ model: 'm' } as never));
        expect(missing).to.include({ status: 400, param: 'input', code: 'missing_required_parameter' });
        const modelless = await failure(client.responses.create({ input: 'x' } as never));
        expect(modelless).to.include({ status: 400, param: 'model', code: 'missing_required_parameter' });
        const listed = await service.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(user)}`);
        expect(listed.json.conversations).to.deep.equal([]);
        expect(model.calls.filter((c) => c.request.text === 'Look' || c.request.text === 'x')).to.have.length(0);
      });

      it('without Authorization: 401 with WWW-Authenticate, in OpenAI\'s shape', async () => {
        const res = await bare('POST', '/v1/responses', { body: { model: 'm', input: 'Hi' } });
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
        expect(res.json.error).to.include({ type: 'invalid_request_error' });
        expect(res.json.error.message).to.be.a('string');
        const retrieve = await bare('GET', `/v1/responses/${uid('r')}`);
        expect(retrieve.status).to.equal(401);
        const models = await bare('GET', '/v1/models');
        expect(models.status).to.equal(401);
        expect(models.json.error).to.include({ type: 'invalid_request_error' });
      });

      it("another method is 405 with Allow in OpenAI's shape; a path of none of its operations is a 404 in OpenAI's shape too", async () => {
        const user = uid('u');
        const headers = { authorization: `Bearer ${user}` };
        const put = await service.call('PUT', '/v1/responses', { headers, body: {} });
        expect(put.status).to.equal(405);
        expect(put.headers.get('allow')).to.include('POST');
        expect(put.json.error).to.include({ type: 'invalid_request_error', code: 'method_not_allowed' });
        const unknown = await service.call('GET', `/v1/responses/${uid('r')}/nothing/here`, { headers });
        expect(unknown.status).to.equal(404);
        expect(unknown.json.error).to.include({ type: 'invalid_request_error' });
        expect(unknown.json.error.message).to.include('/nothing/here');
        const conversationsUnknown = await service.call('GET', '/v1/conversations/x/items/y/z', { headers });
        expect(conversationsUnknown.status).to.equal(404);
        expect(conversationsUnknown.json.error).to.include({ type: 'invalid_request_error' });
      });

      it("OpenAI's APIs the service does not offer (chat completions, embeddings) are a 404 the SDK reads, saying what is offered; /v1/chat stays ours", async () => {
        // Not through clientOf: its fetch checks every answer against /openapi.json, which documents what is offered.
        const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: uid('u'), maxRetries: 0 });
        const completions = await failure(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
        expect(completions.status).to.equal(404);
        expect(completions.message).to.include('/v1/chat/completions').and.include('client.responses.create');
        expect(completions.error).to.include({ type: 'invalid_request_error' });
        expect((await failure(client.embeddings.create({ model: 'm', input: 'hi' }))).status).to.equal(404);
        const native = await service.call('GET', '/v1/chat/nothing');
        expect(native.status).to.equal(404);
        expect(native.json).to.deep.equal({ detail: 'no endpoint at /v1/chat/nothing', status: 'error' });
      });

      it('GET /v1/models lists the configured model', async () => {
        const client = await clientOf();
        const models = await client.models.list();
        expect(models.data.map((m) => m.id)).to.deep.equal(['scripted']);
        expect(models.data[0]).to.include({ object: 'model', owned_by: 'assistant-backend' });
        expect((await client.models.retrieve('scripted')).id).to.equal('scripted');
        const unknown = await failure(client.models.retrieve('gpt-nothing'));
        expect(unknown).to.include({ status: 404, code: 'model_not_found' });
      });
    });
  });
}
