import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { eventually, replyClient } from '../support/reply-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import { startTestService } from '../support/service.js';
import { durableReplySuite } from './durable-replies.suite.js';

describe('durable replies (PostgreSQL store)', function () {
  this.timeout(20_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  durableReplySuite({
    start: (environment, overrides) => startTestService({ ...environment, DATABASE_URL: database!.url }, overrides),
    // The database outlives the service: another service on it reads what the first one stored.
    lastingStore: async () => ({
      overrides: {},
      messages: async (userId, conversationId) => {
        const reader = await startTestService({ DATABASE_URL: database!.url });
        try {
          return await replyClient(reader.url).messages(userId, conversationId);
        } finally {
          await reader.stop();
        }
      },
      close: async () => {},
    }),
  });

  describe('two services on one database', () => {
    it('a resume on the other from a position the store has not reached yet sends nothing twice', async () => {
      const model = new ScriptedChatModel();
      // The producer writes once a second: its listeners run ahead of the store.
      const producer = await startTestService({ DATABASE_URL: database!.url, STREAM_WRITE_INTERVAL_MS: '1000' }, { chatModel: model });
      const other = await startTestService({ DATABASE_URL: database!.url });
      try {
        const who = { user_id: uid('u'), conversation_id: uid('c') };
        const original = await replyClient(producer.url).start({ ...who, text: 'ahead' });
        const call = await model.nextCall();
        call.say('One. ');
        await original.until('One. ');
        const client = replyClient(other.url);
        await eventually(async () => ((await client.messages(who.user_id, who.conversation_id))[1]?.text === 'One. ' ? true : undefined), 'the first write');
        call.say('Two. ');
        await original.until('Two. ');
        const held = original.text;
        const resumed = await client.resume(original.events[0]!.json.message_id, who.user_id, { lastEventId: original.position });
        call.say('Three.');
        call.finish();
        const done = await resumed.end();
        expect(resumed.text).to.equal('Three.');
        expect(held + resumed.text).to.equal(done.json.response);
        expect(done.json.response).to.equal('One. Two. Three.');
        await original.end();
      } finally {
        await Promise.all([producer.stop(), other.stop()]);
      }
    });

    it('a regenerated reply (another branch) resumes and stops from the other instance', async () => {
      const model = new ScriptedChatModel();
      const producer = await startTestService({ DATABASE_URL: database!.url }, { chatModel: model });
      const other = await startTestService({ DATABASE_URL: database!.url });
      try {
        const who = { user_id: uid('u'), conversation_id: uid('c') };
        const first = await replyClient(producer.url).start({ ...who, text: 'Which way?' });
        (await model.nextCall()).say('Left.').finish();
        const answered = await first.end();
        const again = await replyClient(producer.url).start({ ...who, regenerate: answered.json.message_id });
        const call = await model.nextCall();
        expect(call.request.text).to.equal('Which way?');
        call.say('Right, ');
        await again.until('Right, ');
        const replyId = again.events[0]!.json.message_id as string;
        const client = replyClient(other.url);
        await eventually(async () => ((await client.messages(who.user_id, who.conversation_id)).find((m) => m.message_id === replyId)?.text === 'Right, ' ? true : undefined), 'the first write');
        const resumed = await client.resume(replyId, who.user_id, { lastEventId: 0 });
        const stopped = await client.stop(replyId, who.user_id);
        expect(stopped.status).to.equal(200);
        expect(stopped.json.message).to.include({ message_id: replyId, text: 'Right, ', parent_id: answered.json.user_message_id });
        expect(stopped.json.message.metadata.finish_reason).to.equal('cancelled');
        expect((await resumed.end()).json).to.include({ finish_reason: 'cancelled', response: 'Right, ' });
        expect((await again.end()).json).to.include({ finish_reason: 'cancelled' });
        const page = await other.post('/api/chat/loadMessages', { ...who, order: 'desc', limit: 1 });
        expect(page.json.messages[0].siblings).to.include({ count: 2, index: 1, previous_id: answered.json.message_id });
      } finally {
        await Promise.all([producer.stop(), other.stop()]);
      }
    });
  });
});
