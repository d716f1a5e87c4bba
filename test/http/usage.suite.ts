import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { RateLimitError } from 'openai';
import type { AdapterOverrides } from '../../src/bootstrap/tokens.js';
import { estimateTokens } from '../../src/domain/usage.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { FAKE_MODEL, startFakeOpenAiServer } from '../support/fake-openai-server.js';
import { uid } from '../support/ids.js';
import { openAiClientFor } from '../support/openai-client.js';
import { eventually, replyClient } from '../support/reply-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import type { TestService } from '../support/service.js';
import { readStream } from '../support/sse-client.js';

export type StartService = (environment?: Record<string, string>, overrides?: AdapterOverrides) => Promise<TestService>;

const LIMIT_HEADERS = ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'];
const TOKEN_HEADERS = ['x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'];
const today = () => new Date().toISOString().slice(0, 10);

/** Per-minute counts start again on the minute: a test that counts keeps clear of the edge. */
export async function awayFromMinuteEdge(seconds = 8): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await sleep(left + 100);
}

export async function usageOf(service: TestService, userId: string) {
  const answer = await service.call('GET', `/v1/usage?user_id=${encodeURIComponent(userId)}`);
  expect(answer.status, answer.text).to.equal(200);
  return answer.json.totals as { requests: number; input_tokens: number; output_tokens: number; speech_characters: number };
}

export const chat = (service: TestService, userId: string, text = 'Hello there, how are you?') => service.post('/v1/chat', { user_id: userId, text });

/** The behaviour of usage and limits over HTTP, for a service on either store. */
export function usageSuite(start: StartService): void {
  describe('counting (limits off)', () => {
    let service: TestService;
    let engine: FakeSpeechSynthesizer;
    before(async () => {
      engine = new FakeSpeechSynthesizer();
      service = await start({}, { speechSynthesizer: engine });
    });
    after(() => service?.stop());

    it('chat, plain and streamed: each request, and the tokens the model counted', async () => {
      const user = uid('u');
      const plain = await chat(service, user);
      expect(plain.status).to.equal(200);
      expect(plain.headers.get('ratelimit'), 'no limit headers while limits are off').to.equal(null);
      const { events } = await readStream(`${service.url}/v1/chat/stream`, { user_id: user, text: 'Tell me about yourself.' });
      expect(events.at(-1)!.event).to.equal('done');
      const messages = await replyClient(service.url).messages(user, events[0]!.json.conversation_id);
      const first = await replyClient(service.url).messages(user, plain.json.conversation_id);
      const counted = [...messages, ...first].filter((m) => m.role === 'assistant').map((m) => m.metadata.usage);
      const totals = await usageOf(service, user);
      expect(totals).to.deep.equal({
        requests: 2,
        input_tokens: counted.reduce((sum, usage) => sum + usage.prompt_tokens, 0),
        output_tokens: counted.reduce((sum, usage) => sum + usage.completion_tokens, 0),
        speech_characters: 0,
      });
      const day = (await service.call('GET', `/v1/usage?user_id=${user}&from=${today()}&to=${today()}`)).json;
      expect(day.days).to.have.length(1);
      expect(day.days[0]).to.deep.include({ date: today(), requests: 2 });
    });

    it('speech: the characters answered, for the user named (or the token\'s), on every speech endpoint', async () => {
      const user = uid('u');
      const speak = (path: string, body: object) => service.call('POST', path, { body });
      expect((await speak('/api/tts', { text: 'Hello there.', user_id: user })).status).to.equal(200);
      expect((await service.call('GET', `/api/tts?text=${encodeURIComponent('Good day.')}&user_id=${user}`)).status).to.equal(200);
      const openAi = await openAiClientFor(service).audio.speech.create({ model: 'tts-1', input: 'Three words here.', voice: 'alpha', user_id: user } as never);
      await openAi.arrayBuffer();
      const noUser = await speak('/api/tts', { text: 'Nobody asked.' });
      expect(noUser.status).to.equal(200);
      expect((await usageOf(service, user)).speech_characters).to.equal('Hello there.'.length + 'Good day.'.length + 'Three words here.'.length);
      expect((await usageOf(service, user)).requests).to.equal(3);
    });

    it('speech of a stored reply and of a streamed one counts for the chat\'s user', async () => {
      const user = uid('u');
      const { events } = await readStream(`${service.url}/v1/chat/stream`, { user_id: user, text: 'Hello! Who are you?', speech: { format: 'wav' } });
      const reply = events.at(-1)!.json;
      const spoken = events.filter((e) => e.event === 'audio').map((e) => e.json.text as string).join('');
      expect(spoken).to.equal(reply.response);
      const before = await usageOf(service, user);
      expect(before.speech_characters).to.equal([...spoken].length);
      const stored = await service.call('GET', `/api/tts?message_id=${reply.message_id}&user_id=${user}`);
      expect(stored.status).to.equal(200);
      expect((await usageOf(service, user)).speech_characters).to.equal(2 * [...spoken].length);
    });

    it('GET /v1/usage: every day of a range with totals; 400 for a bad range or date, or no user', async () => {
      const user = uid('u');
      await chat(service, user);
      const week = await service.call('GET', `/v1/usage?user_id=${user}&from=2026-01-01&to=2026-01-07`);
      expect(week.status).to.equal(200);
      expect(week.json.days.map((d: { date: string }) => d.date)).to.deep.equal(['01', '02', '03', '04', '05', '06', '07'].map((d) => `2026-01-${d}`));
      expect(week.json.totals).to.deep.equal({ requests: 0, input_tokens: 0, output_tokens: 0, speech_characters: 0 });
      for (const [query, field] of [
        [`user_id=${user}&from=2026-02-30`, 'from'],
        [`user_id=${user}&to=yesterday`, 'to'],
        [`user_id=${user}&from=2026-03-02&to=2026-03-01`, 'from'],
        [`user_id=${user}&from=2024-01-01&to=2026-01-01`, 'to'],
        ['from=2026-01-01', 'user_id'],
      ]) {
        const answer = await service.call('GET', `/v1/usage?${query}`);
        expect(answer.status, query).to.equal(400);
        expect(answer.json.detail, query).to.match(new RegExp(`^${field}: `));
      }
    });

    it('DELETE /api/users/{user_id} erases their usage too, and nobody else\'s', async () => {
      const [user, other] = [uid('u'), uid('other')];
      await chat(service, user);
      await chat(service, other);
      await service.call('POST', '/api/tts', { body: { text: 'Bye.', user_id: user } });
      expect((await service.call('DELETE', `/api/users/${encodeURIComponent(user)}`)).status).to.equal(200);
      expect(await usageOf(service, user)).to.deep.equal({ requests: 0, input_tokens: 0, output_tokens: 0, speech_characters: 0 });
      expect((await usageOf(service, other)).requests).to.equal(1);
    });

    it('/metrics counts tokens by model', async () => {
      await chat(service, uid('u'));
      const metrics = await service.call('GET', '/metrics');
      expect(metrics.text).to.match(/chat_model_tokens_total\{model="offline-eliza",type="input"\} [1-9]\d*/);
      expect(metrics.text).to.match(/chat_model_tokens_total\{model="offline-eliza",type="output"\} [1-9]\d*/);
    });
  });

  describe('a stopped stream', () => {
    it('counts the tokens it produced (estimated, as the model gave no count); a reply stopped before its first piece counts none', async () => {
      const model = new ScriptedChatModel();
      const service = await start({}, { chatModel: model });
      try {
        const user = uid('u');
        const client = replyClient(service.url);
        const stream = await client.start({ user_id: user, text: 'Go on and on.' });
        const call = await model.nextCall();
        call.say('Once upon a time, ', 'there was a reply.');
        await stream.until('there was a reply.');
        expect((await client.stop(stream.events[0]!.json.message_id, user)).status).to.equal(200);
        await stream.end();
        const totals = await usageOf(service, user);
        expect(totals.output_tokens).to.equal(estimateTokens('Once upon a time, there was a reply.'));
        expect(totals.input_tokens).to.be.greaterThan(estimateTokens('Go on and on.'));
        expect(totals.requests).to.equal(1);

        const quiet = await client.start({ user_id: user, text: 'Say nothing.' });
        await model.nextCall();
        await client.stop(quiet.events[0]!.json.message_id, user);
        await quiet.end();
        expect(await usageOf(service, user)).to.deep.include({ requests: 2, output_tokens: totals.output_tokens, input_tokens: totals.input_tokens });
      } finally {
        await service.stop();
      }
    });
  });

  describe('an OpenAI-compatible model', () => {
    it("streams count the model's own count (asked for with stream_options.include_usage); a stopped one the estimate; /metrics by model", async () => {
      const fake = await startFakeOpenAiServer();
      const service = await start({ LLM_PROVIDER: 'openai', LLM_BASE_URL: fake.baseUrl, LLM_MODEL: FAKE_MODEL, LLM_MAX_RETRIES: '0' });
      try {
        const user = uid('u');
        const { events } = await readStream(`${service.url}/v1/chat/stream`, { user_id: user, text: 'Count me.' });
        expect(events.at(-1)!.event).to.equal('done');
        expect(fake.requests.at(-1)!.body).to.deep.include({ stream: true, stream_options: { include_usage: true } });
        const stored = (await replyClient(service.url).messages(user, events[0]!.json.conversation_id))[1].metadata.usage;
        expect(stored.prompt_tokens).to.equal(11);
        // The first turn also asked the model for the conversation's title (TITLE_MODE=model): a model call too.
        const titleCall = fake.requests.find((r) => r.body?.stream !== true)?.body;
        const titleTokens = titleCall ? { input: 11, output: (await eventually(async () => (await usageOf(service, user)).output_tokens - stored.completion_tokens || undefined, 'the title\'s tokens')) } : { input: 0, output: 0 };
        expect(await usageOf(service, user)).to.deep.include({ input_tokens: 11 + titleTokens.input, output_tokens: stored.completion_tokens + titleTokens.output });
        const before = await usageOf(service, user);

        fake.queue.push({ kind: 'stall', pieces: 2 });
        const client = replyClient(service.url);
        // In the same conversation: no title asked for, so the stall is the reply's.
        const stalled = await client.start({ user_id: user, conversation_id: events[0]!.json.conversation_id, text: 'Stall, please.' });
        await stalled.next();
        await stalled.next();
        await client.stop(stalled.events[0]!.json.message_id, user);
        await stalled.end();
        const after = await usageOf(service, user);
        expect(after.output_tokens - before.output_tokens).to.equal(estimateTokens(stalled.text));
        expect(after.input_tokens - before.input_tokens, 'the prompt, estimated').to.be.greaterThan(estimateTokens('Stall, please.'));
        const metrics = (await service.call('GET', '/metrics')).text;
        expect(metrics).to.include(`chat_model_tokens_total{model="${FAKE_MODEL}",type="input"} ${after.input_tokens}`);
        expect(metrics).to.include(`chat_model_tokens_total{model="${FAKE_MODEL}",type="output"} ${after.output_tokens}`);
      } finally {
        await service.stop();
        await fake.stop();
      }
    });
  });

  describe('LIMIT_REQUESTS_PER_MINUTE', () => {
    let service: TestService;
    before(async () => {
      service = await start({ LIMIT_REQUESTS_PER_MINUTE: '2' }, { speechSynthesizer: new FakeSpeechSynthesizer() });
    });
    after(() => service?.stop());
    beforeEach(() => awayFromMinuteEdge());

    it('the request past the limit is 429 with Retry-After and both kinds of headers; it counts nothing; others are not held back', async () => {
      const user = uid('u');
      const answers = [await chat(service, user), await chat(service, user), await chat(service, user)];
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 429]);
      for (const answer of answers) for (const name of LIMIT_HEADERS) expect(answer.headers.get(name), `${name} on a ${answer.status}`).to.be.a('string');
      expect(answers.map((a) => a.headers.get('x-ratelimit-remaining-requests'))).to.deep.equal(['1', '0', '0']);
      expect(answers[0]!.headers.get('x-ratelimit-limit-requests')).to.equal('2');
      expect(answers[0]!.headers.get('x-ratelimit-reset-requests')).to.match(/^(\d{1,2}s|1m0s)$/);
      expect(answers[0]!.headers.get('ratelimit-policy')).to.equal('"requests";q=2;w=60');
      expect(answers[1]!.headers.get('ratelimit')).to.match(/^"requests";r=0;t=\d{1,2}$/);
      for (const name of TOKEN_HEADERS) expect(answers[0]!.headers.get(name), 'no token limit set').to.equal(null);
      const refused = answers[2]!;
      expect(refused.json).to.deep.include({ status: 'error' });
      expect(refused.json.detail).to.match(/^rate limit reached: 2 requests per minute/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).to.be.within(1, 60);
      expect(retryAfter).to.equal(Number(/t=(\d+)/.exec(refused.headers.get('ratelimit')!)![1]));
      expect((await usageOf(service, user)).requests).to.equal(2);
      expect((await chat(service, uid('other'))).status, 'another user').to.equal(200);
      const usage = await service.call('GET', `/v1/usage?user_id=${user}`);
      expect(usage.status, 'GET /v1/usage is not limited').to.equal(200);
      expect(usage.headers.get('ratelimit')).to.equal(null);
    });

    it('a request the client got wrong (4xx) counts nothing and takes no place', async () => {
      const user = uid('u');
      expect((await service.post('/v1/chat', { user_id: user, text: '   ' })).status).to.equal(400);
      expect((await service.post('/v1/chat', { user_id: user, text: 'hi', conversation_id: uid('c'), parent_id: uid('m') })).status).to.equal(400);
      expect((await chat(service, user)).status).to.equal(200);
      expect((await chat(service, user)).status).to.equal(200);
      expect((await usageOf(service, user)).requests).to.equal(2);
    });

    it('streams and speech share the limit; the speech 429 is OpenAI\'s error object, which the openai SDK raises as RateLimitError', async () => {
      const user = uid('u');
      const stream = await service.call('POST', '/v1/chat/stream', { body: { user_id: user, text: 'Hello' } });
      expect(stream.status).to.equal(200);
      expect(stream.headers.get('x-ratelimit-remaining-requests')).to.equal('1');
      const tts = await service.call('POST', '/api/tts', { body: { user_id: user, text: 'Hello.' } });
      expect(tts.status).to.equal(200);
      expect(tts.headers.get('x-ratelimit-remaining-requests')).to.equal('0');
      const client = openAiClientFor(service);
      const error = await client.audio.speech.create({ model: 'tts-1', input: 'Too many.', voice: 'alloy', user_id: user } as never).then(
        () => expect.fail('the request past the limit should fail'),
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(RateLimitError);
      const rateLimited = error as RateLimitError;
      expect(rateLimited.status).to.equal(429);
      expect(rateLimited.code).to.equal('rate_limit_exceeded');
      expect(rateLimited.type).to.equal('requests');
      expect(rateLimited.headers.get('x-ratelimit-remaining-requests')).to.equal('0');
      expect(Number(rateLimited.headers.get('retry-after'))).to.be.within(1, 60);
      expect((await usageOf(service, user)).requests).to.equal(2);
      expect((await service.call('GET', `/api/tts?text=Hi&user_id=${user}`)).status).to.equal(429);
    });
  });

  describe('LIMIT_TOKENS_PER_DAY', () => {
    it('once the day\'s tokens reach it, chat is 429 until midnight UTC; speech goes on', async () => {
      const service = await start({ LIMIT_TOKENS_PER_DAY: '20' }, { speechSynthesizer: new FakeSpeechSynthesizer() });
      try {
        const user = uid('u');
        const first = await chat(service, user);
        expect(first.status).to.equal(200);
        expect(first.headers.get('x-ratelimit-remaining-tokens')).to.equal('20');
        expect(first.headers.get('ratelimit-policy')).to.equal('"tokens";q=20;w=86400;qu="tokens"');
        for (const name of ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests']) expect(first.headers.get(name)).to.equal(null);
        const used = await usageOf(service, user);
        expect(used.input_tokens + used.output_tokens).to.be.at.least(20);
        const refused = await chat(service, user);
        expect(refused.status).to.equal(429);
        expect(refused.json.detail).to.match(/^token limit reached: 20 tokens per day/);
        expect(refused.headers.get('x-ratelimit-remaining-tokens')).to.equal('0');
        const untilMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000);
        expect(Number(refused.headers.get('retry-after'))).to.be.within(untilMidnight - 5, untilMidnight + 1);
        expect(refused.headers.get('x-ratelimit-reset-tokens')).to.match(/^(\d+h)?(\d+m)?\d+s$/);
        expect((await service.call('POST', '/api/tts', { body: { user_id: user, text: 'Still speaking.' } })).status).to.equal(200);
        expect((await usageOf(service, user)).requests).to.equal(2);
      } finally {
        await service.stop();
      }
    });
  });

  describe('LIMITS_FILE', () => {
    it('per-user overrides, re-read when the file changes; a broken version is refused and the last good one stays', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'assistant-limits-'));
      const file = join(dir, 'limits.json');
      const [vip, blocked, plain] = [uid('vip'), uid('blocked'), uid('plain')];
      await writeFile(file, JSON.stringify({ users: { [vip]: { requests_per_minute: 3 }, [blocked]: { requests_per_minute: 0 } } }));
      const service = await start({ LIMIT_REQUESTS_PER_MINUTE: '1', LIMITS_FILE: file });
      try {
        await awayFromMinuteEdge(15);
        const statuses = async (user: string, count: number) => {
          const seen: number[] = [];
          for (let i = 0; i < count; i++) seen.push((await chat(service, user)).status);
          return seen;
        };
        expect(await statuses(vip, 4)).to.deep.equal([200, 200, 200, 429]);
        expect(await statuses(plain, 2)).to.deep.equal([200, 429]);
        expect(await statuses(blocked, 1)).to.deep.equal([429]);
        const refused = await chat(service, blocked);
        expect(refused.json.detail ?? refused.json.error?.message, 'no "try again in" for a limit of 0').to.match(/may make no requests \(a limit of 0 a minute\); waiting does not help$/);
        await writeFile(file, JSON.stringify({ users: { [blocked]: { requests_per_minute: null } } }));
        await eventually(async () => ((await chat(service, blocked)).status === 200 ? true : undefined), 'the new file in force');
        expect((await chat(service, vip)).status, 'vip is back to the default (1), used up').to.equal(429);
        await writeFile(file, '{"users": {"x": {"requests_per_minute": -1}}}');
        await sleep(600);
        expect((await chat(service, blocked)).status, 'the broken file is refused').to.equal(200);
        expect((await chat(service, blocked)).headers.get('ratelimit'), 'no limit for blocked now').to.equal(null);
      } finally {
        await service.stop();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('a broken file stops start-up with one line naming it', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'assistant-limits-'));
      const file = join(dir, 'limits.json');
      await writeFile(file, '{"users": {"a": {"requests_per_minut": 3}}}');
      try {
        const failure = await start({ LIMITS_FILE: file }).then(
          async (service) => {
            await service.stop();
            return null;
          },
          (error: Error) => error,
        );
        expect(failure?.message).to.match(/^invalid configuration: LIMITS_FILE .*limits\.json: users\.a /);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
