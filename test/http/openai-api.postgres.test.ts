import { expect } from 'chai';
import type OpenAI from 'openai';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { eventually } from '../support/reply-client.js';
import { EventReader, expectNumbering, expectWholeStream, textOf } from '../support/response-events.js';
import { responsesClient } from '../support/responses-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import { startTestService, type TestService } from '../support/service.js';
import { ChatModelFailedError } from '../../src/domain/errors.js';
import { openAiConversationsSuite } from './openai-conversations.suite.js';
import { openAiResponsesSuite } from './openai-responses.suite.js';

describe("OpenAI's Responses and Conversations APIs (PostgreSQL store)", function () {
  this.timeout(20_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  const start = (environment: Record<string, string>, overrides: Parameters<typeof startTestService>[1]) => startTestService({ ...environment, DATABASE_URL: database!.url }, overrides);
  openAiResponsesSuite(start);
  openAiConversationsSuite(start);

  describe('two services on one database', () => {
    const model = new ScriptedChatModel();
    let producer: TestService;
    let other: TestService;
    before(async () => {
      // The producer writes its reply to the store once a second: its own listeners run ahead of the store.
      producer = await start({ STREAM_WRITE_INTERVAL_MS: '1000' }, { chatModel: model });
      other = await start({}, {});
    });
    after(() => Promise.all([producer?.stop(), other?.stop()]));
    beforeEach(() => model.forgetCalls());

    /** A background response started on the producer, its model call, and the user's client of each instance. */
    const background = async (input: string) => {
      const user = uid('u');
      const here = await responsesClient(producer, user);
      const there = await responsesClient(other, user);
      const pending = here.responses.create({ model: 'm', input, background: true });
      const call = await model.nextCall();
      return { here, there, call, response: await pending };
    };

    it('a background response streams on the other instance from starting_after, live to its end: no text lost or repeated', async () => {
      const { there, call, response } = await background('Count slowly');
      call.say('One. ');
      await eventually(async () => ((await there.responses.retrieve(response.id)).output_text === 'One. ' ? true : undefined), 'the first write');
      const first = new EventReader(await there.responses.retrieve(response.id, { stream: true }));
      await first.take(5);
      expect(first.text).to.equal('One. ');
      call.say('Two. ');
      const held = first.events.at(-1)!.sequence_number;
      const resumed = new EventReader(await there.responses.retrieve(response.id, { stream: true, starting_after: held }));
      call.say('Thr', 'ee.');
      call.finish();
      const rest = await resumed.rest();
      expectNumbering(rest, 5);
      expect(first.text + textOf(rest)).to.equal('One. Two. Three.');
      expect(rest.at(-1)!.type).to.equal('response.completed');
      expect(expectWholeStream(await first.rest())).to.equal('One. Two. Three.');
      expect(await there.responses.retrieve(response.id)).to.include({ status: 'completed', output_text: 'One. Two. Three.', background: true });
    });

    it("a client of the producer's own stream, ahead of the store, resumes on the other instance: it waits for the store, nothing is sent twice", async () => {
      const user = uid('u');
      const here = await responsesClient(producer, user);
      const there = await responsesClient(other, user);
      const original = new EventReader(await here.responses.create({ model: 'm', input: 'Stream it', stream: true, background: true }));
      const call = await model.nextCall();
      const created = (await original.next()) as OpenAI.Responses.ResponseCreatedEvent;
      await original.next();
      call.say('Ahead ');
      await original.take(3); // the item and its part, announced with the first piece, and the piece
      call.say('of the store. ');
      await original.next();
      const held = original.events.at(-1)!.sequence_number;
      expect(held).to.equal(3 + 'Ahead of the store. '.length);
      // The producer has not written the text yet (once a second): the other instance's resume waits for it.
      const resumed = new EventReader(await there.responses.retrieve(created.response.id, { stream: true, starting_after: held }));
      call.say('Then the rest.');
      call.finish();
      const rest = await resumed.rest();
      expect(original.text + textOf(rest)).to.equal('Ahead of the store. Then the rest.');
      expect(rest[0]!.sequence_number).to.be.greaterThan(held);
      expectNumbering(rest, 'Ahead of the store. '.length);
      expect(expectWholeStream(await original.rest())).to.equal('Ahead of the store. Then the rest.');
    });

    it('cancel from the other instance stops the model on the producer; every stream ends cancelled with the text kept', async () => {
      const { here, there, call, response } = await background('Go on forever');
      call.say('Partial ');
      await eventually(async () => ((await there.responses.retrieve(response.id)).output_text === 'Partial ' ? true : undefined), 'the first write');
      const onProducer = new EventReader(await here.responses.retrieve(response.id, { stream: true }));
      const onOther = new EventReader(await there.responses.retrieve(response.id, { stream: true }));
      await onProducer.take(5);
      await onOther.take(5);
      const cancelled = await there.responses.cancel(response.id);
      expect(cancelled.status).to.equal('cancelled');
      expect(cancelled.output[0]).to.deep.include({ status: 'incomplete', content: [{ type: 'output_text', text: 'Partial ', annotations: [], logprobs: [] }] });
      await call.aborted;
      for (const reader of [onProducer, onOther]) {
        const events = await reader.rest();
        expect(expectWholeStream(events, 'response.incomplete')).to.equal('Partial ');
        expect((events.at(-1) as OpenAI.Responses.ResponseIncompleteEvent).response.status).to.equal('cancelled');
      }
      expect(await here.responses.retrieve(response.id)).to.include({ status: 'cancelled', output_text: 'Partial ' });
    });

    it('one that fails before its first piece, followed on the other instance, ends there right after response.in_progress, announcing no item', async () => {
      const { there, call, response } = await background('Fail at once');
      const onOther = new EventReader(await there.responses.retrieve(response.id, { stream: true }));
      await onOther.take(2);
      call.fail(new ChatModelFailedError('the language model is unavailable'));
      const events = await onOther.rest();
      expect(expectWholeStream(events, 'response.failed')).to.equal('');
      expect((events.at(-1) as OpenAI.Responses.ResponseFailedEvent).response).to.deep.include({ status: 'failed', output: [] });
      const replay = await new EventReader(await there.responses.retrieve(response.id, { stream: true })).rest();
      expect(replay.map((e) => [e.type, e.sequence_number])).to.deep.equal(events.map((e) => [e.type, e.sequence_number]));
    });

    it('a response made on one instance is read, branched from and deleted on the other', async () => {
      const { here, there, call, response } = await background('Where to?');
      call.say('North.').finish();
      await eventually(async () => ((await there.responses.retrieve(response.id)).status === 'completed' ? true : undefined), 'the end');
      const pending = there.responses.create({ model: 'm', input: 'Why?', previous_response_id: response.id });
      // The other instance has the default model (the offline one): it answers by itself.
      const branched = await pending;
      expect(branched).to.include({ status: 'completed', previous_response_id: response.id });
      expect(branched.conversation?.id).to.equal(response.conversation?.id);
      await there.responses.delete(response.id);
      const error = await here.responses.retrieve(response.id).catch((e: { status?: number }) => e);
      expect((error as { status?: number }).status).to.equal(404);
    });
  });
});
