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
  });
});
