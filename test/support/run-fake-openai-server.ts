import { startFakeOpenAiServer } from './fake-openai-server.js';

/**
 * The test suite's fake OpenAI-compatible server, standalone, for trying the service by hand:
 *   npx tsx test/support/run-fake-openai-server.ts [port]      (default 8098)
 *   LLM_PROVIDER=openai LLM_BASE_URL=http://127.0.0.1:8098/v1 LLM_MODEL=fake-model-1 npm start
 * It repeats the user's message word by word and prints what each request carried.
 */
const fake = await startFakeOpenAiServer(Number(process.argv[2] ?? 8098));
fake.chunkDelayMs = Number(process.env.FAKE_CHUNK_DELAY_MS ?? 50);
process.stdout.write(`fake OpenAI-compatible server at ${fake.baseUrl}\n`);
let seen = 0;
setInterval(() => {
  for (const request of fake.requests.slice(seen)) {
    const messages = (request.body?.messages ?? []) as { role: string; content: string }[];
    const summary = messages.map((m) => `${m.role}: ${m.content.slice(0, 60).replace(/\n/g, ' ')}`).join(' | ');
    process.stdout.write(`${request.method} ${request.path} stream=${Boolean(request.body?.stream)} model=${request.body?.model} :: ${summary}\n`);
  }
  seen = fake.requests.length;
}, 100);
const stop = () => void fake.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
