import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { FAKE_MODEL, startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server.js';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { codePoints, eventually, replyClient } from '../support/reply-client.js';
import { killAllServiceProcesses, launchService, type ServiceProcess } from '../support/service-process.js';
import { startTestService } from '../support/service.js';

const STALE_MS = 1500;

/**
 * Replies across instances: service processes (the real entry point) sharing one PostgreSQL
 * database, their model a local OpenAI-compatible server whose pace the test sets. A reply
 * produced by one is resumed and stopped from another, and one whose producer was killed is
 * completed as interrupted once stale.
 */
describe('durable replies across service processes on one PostgreSQL database', function () {
  this.timeout(60_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let fake: FakeOpenAiServer;
  let first: ServiceProcess;
  let second: ServiceProcess;

  const environment = () => ({
    DATABASE_URL: database!.url,
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: fake.baseUrl,
    LLM_MODEL: FAKE_MODEL,
    LLM_API_KEY: 'sk-local-test',
    LLM_MAX_RETRIES: '0',
    TITLE_MODE: 'first_message',
    STREAM_STALE_MS: String(STALE_MS),
    STREAM_WRITE_INTERVAL_MS: '50',
    SHUTDOWN_TIMEOUT_MS: '1000',
  });

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    fake = await startFakeOpenAiServer();
    // One after the other: the first migrates the new database.
    first = await launchService(environment());
    second = await launchService(environment());
  });
  after(async () => {
    killAllServiceProcesses();
    await fake?.stop();
    await database?.drop();
  });
  beforeEach(() => fake.reset());

  const someone = () => ({ user_id: uid('u'), conversation_id: uid('c') });

  it('a reply started on the first is resumed on the second with identical text', async () => {
    const text = Array.from({ length: 30 }, (_, i) => `word${i}${i % 7 === 0 ? ' 🌍' : ''}`).join(' ');
    fake.queue.push({ kind: 'reply', text });
    fake.chunkDelayMs = 20;
    const who = someone();
    const original = await replyClient(first.url).start({ ...who, text: 'go' });
    await original.until('word3');
    const held = original.text;
    const messageId = original.events[0]!.json.message_id;
    const resumed = await replyClient(second.url).resume(messageId, who.user_id, { lastEventId: original.position });
    const whole = await replyClient(second.url).resume(messageId, who.user_id);
    expect(resumed.events[0]!.json).to.deep.equal(original.events[0]!.json);
    const [originalDone, resumedDone, wholeDone] = await Promise.all([original.end(), resumed.end(), whole.end()]);
    expect(originalDone.json.response).to.equal(text);
    expect(original.text).to.equal(text);
    expect(held + resumed.text).to.equal(text);
    expect(whole.text).to.equal(text);
    expect(resumedDone.json).to.deep.equal(originalDone.json);
    expect(wholeDone.json).to.deep.equal(originalDone.json);
    expect([resumedDone.id, wholeDone.id]).to.deep.equal([String(codePoints(text)), String(codePoints(text))]);
    // The first turn names its conversation: every stream of it says so before `done`, on either instance.
    const titles = [original, resumed, whole].map((stream) => stream.events.filter((e) => e.event === 'title').map((e) => e.json));
    expect(titles[0]).to.deep.equal([{ conversation_id: who.conversation_id, title: 'go', title_source: 'first_message' }]);
    expect(titles[1]).to.deep.equal(titles[0]);
    expect(titles[2]).to.deep.equal(titles[0]);
    expect([resumed, whole].map((stream) => stream.events.at(-2)?.event)).to.deep.equal(['title', 'title']);
  });

  it('a reply that fails before its first piece on the first ends with the same error on the second (not "cancelled")', async () => {
    fake.queue.push({ kind: 'fail', status: 500, delayMs: 800 });
    const who = someone();
    const original = await replyClient(first.url).start({ ...who, text: 'fail at once' });
    const messageId = original.events[0]!.json.message_id;
    const followed = await replyClient(second.url).resume(messageId, who.user_id);
    const [originalEnd, followedEnd] = await Promise.all([original.end(), followed.end()]);
    expect(originalEnd.event).to.equal('error');
    expect(followedEnd.event).to.equal('error');
    expect(followedEnd.json.detail).to.equal(originalEnd.json.detail);
  });

  it('a reply produced on the first is stopped from the second: every stream ends with "cancelled"', async () => {
    fake.queue.push({ kind: 'stall', pieces: 3 });
    const who = someone();
    const original = await replyClient(first.url).start({ ...who, text: 'never ending story' });
    await original.until('You said: never');
    const messageId = original.events[0]!.json.message_id;
    const resumed = await replyClient(second.url).resume(messageId, who.user_id);
    await resumed.until('You said: never');
    const stopped = await replyClient(second.url).stop(messageId, who.user_id);
    expect(stopped.status).to.equal(200);
    expect(stopped.json.message).to.include({ message_id: messageId, status: 'completed', text: 'You said: never' });
    expect(stopped.json.message.metadata.finish_reason).to.equal('cancelled');
    await fake.requests.at(-1)!.closed; // the producer aborted its model call
    for (const stream of [original, resumed]) {
      const done = await stream.end();
      expect(done.event).to.equal('done');
      expect(done.json).to.include({ finish_reason: 'cancelled', response: 'You said: never' });
    }
    expect(await replyClient(first.url).stop(messageId, who.user_id)).to.deep.equal(stopped);
  });

  it('a killed producer: its reply stays in progress while it lives, and is completed as interrupted STREAM_STALE_MS after it died', async () => {
    const doomed = await launchService(environment());
    fake.queue.push({ kind: 'stall', pieces: 3 }, { kind: 'stall', pieces: 3 });
    const [watched, unwatched] = [someone(), someone()];
    const producer = replyClient(doomed.url);
    const watchedStream = await producer.start({ ...watched, text: 'speak slowly' });
    const unwatchedStream = await producer.start({ ...unwatched, text: 'speak slowly' });
    await Promise.all([watchedStream.until('You said: speak'), unwatchedStream.until('You said: speak')]);
    const reader = replyClient(second.url);
    const shownBy = async (who: { user_id: string; conversation_id: string }) => (await reader.messages(who.user_id, who.conversation_id))[1];
    await eventually(async () => ((await shownBy(unwatched))?.text === 'You said: speak' ? true : undefined), 'the text to be stored');
    // The model is silent for longer than STREAM_STALE_MS: the producer's signs of life keep the reply going.
    await sleep(STALE_MS + 500);
    expect(await shownBy(unwatched)).to.include({ status: 'in_progress', text: 'You said: speak' });

    const resumed = await reader.resume(watchedStream.events[0]!.json.message_id, watched.user_id);
    await resumed.until('You said: speak');
    await doomed.kill();
    expect(await shownBy(unwatched), 'right after the death, not yet stale').to.include({ status: 'in_progress' });
    // A listener of the dead producer's reply sees it end as interrupted.
    const done = await resumed.end();
    expect(done.event).to.equal('done');
    expect(done.json).to.include({ finish_reason: 'interrupted', response: 'You said: speak' });

    await sleep(STALE_MS + 100);
    const interrupted = await shownBy(unwatched);
    expect(interrupted).to.include({ status: 'completed', text: 'You said: speak' });
    expect(interrupted.metadata.finish_reason).to.equal('interrupted');
    const late = await reader.resume(interrupted.message_id, unwatched.user_id);
    const lateDone = await late.end();
    expect(late.events.map((e) => e.event)).to.deep.equal(['start', 'delta', 'done']);
    expect(lateDone.json).to.include({ finish_reason: 'interrupted', response: 'You said: speak' });
    // Stopping a finished reply changes nothing.
    expect((await reader.stop(interrupted.message_id, unwatched.user_id)).json.message.metadata.finish_reason).to.equal('interrupted');
  });

  it('a stop of a reply whose producer died (not yet stale): after waiting for it, another instance stops it from the stored text', async () => {
    // A database of its own: the other instances here would sweep the reply up as stale meanwhile.
    const own = await createTestDatabase();
    const doomed = await launchService({ ...environment(), DATABASE_URL: own.url, STREAM_STALE_MS: '60000' });
    // Readers here take a reply to be dead only after a minute: the stop must not wait for that.
    const patient = await startTestService({ DATABASE_URL: own.url, STREAM_STALE_MS: '60000' });
    try {
      fake.queue.push({ kind: 'stall', pieces: 2 });
      const who = someone();
      const original = await replyClient(doomed.url).start({ ...who, text: 'orphaned reply' });
      await original.until('You said:');
      const messageId = original.events[0]!.json.message_id;
      const client = replyClient(patient.url);
      await eventually(async () => ((await client.messages(who.user_id, who.conversation_id))[1]?.text === 'You said:' ? true : undefined), 'the text to be stored');
      const resumed = await client.resume(messageId, who.user_id);
      await resumed.until('You said:');
      await doomed.kill();
      const stopped = await client.stop(messageId, who.user_id);
      expect(stopped.status).to.equal(200);
      expect(stopped.json.message).to.include({ message_id: messageId, status: 'completed', text: 'You said:' });
      expect(stopped.json.message.metadata.finish_reason).to.equal('cancelled');
      const done = await resumed.end();
      expect(done.json).to.include({ finish_reason: 'cancelled', response: 'You said:' });
    } finally {
      await patient.stop();
      await own.drop();
    }
  });
});
