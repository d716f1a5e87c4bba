import { request, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { pacedModelEnvironment, startPacedModelServer, type ReplyPlan } from '../support/paced-model-server.js';
import { measureOf, type Row } from '../support/report.js';
import type { SectionContext } from '../support/section.js';
import { Cleanup, startService, type RunningServer } from '../support/servers.js';

export const heading =
  "OpenAI's Responses API streamed (POST /v1/responses, stream: true) against the native POST /v1/chat/stream: the same service in memory, the same local paced model, the same run";

/** Replies per protocol in a run, each timed by itself; the protocols alternate reply by reply. */
const FIRST_EVENT_REPLIES = 40;
const LONG_REPLIES = 4;
/** A short reply: what the first event waits for is the request's own work. */
const SHORT: ReplyPlan = { pieces: 5, size: 20, delayMs: 0 };
/** A long reply as fast as the model can say it: the stream's cost per event shows. */
const LONG: ReplyPlan = { pieces: 2000, size: 12, delayMs: 0 };

interface Streamed {
  /** Milliseconds from sending the request to the first event. */
  firstEventMs: number;
  /** Milliseconds from sending the request to the stream's end. */
  totalMs: number;
  text: string;
  deltas: number;
  last: string;
}

type Protocol = 'responses' | 'chat';

/** One streamed reply over node:http, timed: its first event, its end, its text. */
function stream(server: RunningServer, protocol: Protocol, plan: ReplyPlan, n: number): Promise<Streamed> {
  const user = `bench-responses-${n % 10}`;
  const [path, body, headers] =
    protocol === 'responses'
      ? ['/v1/responses', { model: 'paced-1', input: JSON.stringify(plan), stream: true }, { authorization: `Bearer ${user}` }]
      : ['/v1/chat/stream', { user_id: user, text: JSON.stringify(plan) }, {}];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const result: Streamed = { firstEventMs: -1, totalMs: 0, text: '', deltas: 0, last: '' };
    const parser = createParser({
      onEvent: (event) => {
        if (result.firstEventMs < 0) result.firstEventMs = performance.now() - started;
        result.last = event.event ?? '';
        if (event.event === 'delta') {
          result.text += JSON.parse(event.data).text;
          result.deltas++;
        } else if (event.event === 'response.output_text.delta') {
          result.text += JSON.parse(event.data).delta;
          result.deltas++;
        }
      },
    });
    const req = request(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, agent: false });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) return reject(new Error(`${path} answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('end', () => resolve({ ...result, totalMs: performance.now() - started }));
      res.on('error', reject);
    });
    req.end(JSON.stringify(body));
  });
}

const ENDS: Record<Protocol, string> = { responses: 'response.completed', chat: 'done' };

/** Streams `count` replies of `plan` per protocol, alternating (which goes first alternates too); each checked whole. */
async function alternate(server: RunningServer, plan: ReplyPlan, count: number): Promise<Record<Protocol, Streamed[]>> {
  const results: Record<Protocol, Streamed[]> = { responses: [], chat: [] };
  for (let n = 0; n < count; n++) {
    const order: Protocol[] = n % 2 === 0 ? ['responses', 'chat'] : ['chat', 'responses'];
    for (const protocol of order) {
      const reply = await stream(server, protocol, plan, n);
      if (reply.last !== ENDS[protocol] || reply.text.length !== plan.pieces * plan.size) {
        throw new Error(`a ${protocol} reply ended with ${reply.last} after ${reply.text.length} of ${plan.pieces * plan.size} characters`);
      }
      results[protocol].push(reply);
    }
  }
  return results;
}

const median = (values: number[]) => measureOf(values).median;

export async function run({ settings, log }: SectionContext): Promise<Row[]> {
  const cleanup = new Cleanup();
  try {
    const model = cleanup.add(await startPacedModelServer(), (m) => m.stop());
    const service = cleanup.add(
      await startService('service in memory', { env: pacedModelEnvironment(model) }),
      (s) => s.stop(),
    );
    log('warming up: 20 short and 2 long replies of each protocol');
    await alternate(service, SHORT, 20);
    await alternate(service, LONG, 2);
    const first = { responses: [] as number[], chat: [] as number[] };
    const perEvent = { responses: [] as number[], chat: [] as number[] };
    const deltas = { responses: [] as number[], chat: [] as number[] };
    for (let round = 1; round <= settings.runs; round++) {
      const short = await alternate(service, SHORT, FIRST_EVENT_REPLIES);
      const long = await alternate(service, LONG, LONG_REPLIES);
      for (const protocol of ['responses', 'chat'] as const) {
        first[protocol].push(median(short[protocol].map((r) => r.firstEventMs)));
        // The whole stream's time per piece the model said: the service's cost of relaying each.
        perEvent[protocol].push(median(long[protocol].map((r) => (1000 * r.totalMs) / LONG.pieces)));
        deltas[protocol].push(median(long[protocol].map((r) => r.deltas)));
      }
      log(
        `run ${round}: first event ${first.responses.at(-1)!.toFixed(2)} ms (responses) vs ${first.chat.at(-1)!.toFixed(2)} ms (chat); ` +
          `per piece ${perEvent.responses.at(-1)!.toFixed(1)} vs ${perEvent.chat.at(-1)!.toFixed(1)} µs; deltas sent ${deltas.responses.at(-1)} vs ${deltas.chat.at(-1)}`,
      );
    }
    const ms = (label: string, samples: number[], note: string, unit = 'ms') => ({ label, measure: measureOf(samples), unit, note });
    return [
      {
        figure: `time to first event, a reply of ${SHORT.pieces} pieces`,
        subject: ms('POST /v1/responses', first.responses, `median of ${FIRST_EVENT_REPLIES} per run`),
        baseline: ms('POST /v1/chat/stream', first.chat, `median of ${FIRST_EVENT_REPLIES} per run`),
        target: { text: "a streamed response's first event against the native stream's", atMost: 1.2 },
      },
      {
        figure: `time per piece, ${LONG.pieces} pieces as fast as the model says them`,
        subject: ms('POST /v1/responses', perEvent.responses, `${median(deltas.responses)} deltas sent`, 'µs'),
        baseline: ms('POST /v1/chat/stream', perEvent.chat, `${median(deltas.chat)} deltas sent`, 'µs'),
        target: { text: "a streamed response's time per event against the native stream's", atMost: 1.2 },
      },
    ];
  } finally {
    await cleanup.run();
  }
}
