import { performance } from 'node:perf_hooks';

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  ms: number;
}

/** One request, timed from sending to the last byte of the answer. */
export async function call(baseUrl: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(baseUrl + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json, ms };
}

/** `call`, but any status other than `expected` (default: 2xx) is an error naming the request. */
export async function expectOk(baseUrl: string, method: string, path: string, body?: unknown, expected?: number): Promise<Answer> {
  const answer = await call(baseUrl, method, path, body);
  const ok = expected === undefined ? answer.status >= 200 && answer.status < 300 : answer.status === expected;
  if (!ok) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.json).slice(0, 300)}`);
  return answer;
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
