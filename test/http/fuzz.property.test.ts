import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import fc from 'fast-check';
import { startTestService, type CallResult, type TestService } from '../support/service.js';

/**
 * Property: whatever a client sends to an endpoint that takes a body (or a query string),
 * the answer stays inside the contract — one of the contract's statuses, errors as JSON
 * `{status: "error", detail}`, no stack traces, always an X-Request-Id — and the service
 * keeps serving afterwards.
 *
 * Failures print fast-check's seed and path; rerun one with `FC_SEED=<seed> FC_PATH=<path>`.
 */

const RUNS = 150;
const ALLOWED_STATUSES = [200, 201, 400, 404, 405, 409, 413, 415];
const BODY_LIMIT = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// A tiny JSON writer: plain values, plus raw JSON text (numbers JSON.stringify cannot
// write, deep nesting) and objects given as entry lists (`__proto__` keys, duplicate keys).

class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text.length > 80 ? `RawJson(${this.text.slice(0, 40)}…[${this.text.length} chars])` : `RawJson(${this.text})`;
  }
}

class Entries {
  constructor(readonly entries: [string, unknown][]) {}
}

function writeJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${writeJson(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${writeJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** fc.anything() made JSON-safe: bigints as strings, undefined/functions as null. */
const jsonSafe = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';

// ---------------------------------------------------------------------------------------
// Hostile and valid-looking values.

const loneSurrogates = fc
  .array(fc.integer({ min: 0xd800, max: 0xdfff }), { minLength: 1, maxLength: 4 })
  .map((codes) => String.fromCharCode(...codes));

const longString = fc
  .tuple(fc.integer({ min: 100, max: 40_000 }), fc.constantFrom('a', '😀', ' ', '\u0000', 'é', '\ud800', 'x\n'))
  .map(([n, unit]) => unit.repeat(n));

const nastyConstants = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  '\u007f',
  '\u0085',
  '\u200b',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udc00x',
  'x\ud83d',
  '😀'.repeat(128),
  '😀'.repeat(129),
  'a'.repeat(128),
  'a'.repeat(129),
  '👩‍👩‍👧‍👦',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  'true',
  '1e400',
  '%00',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${7*7}',
  '    at Object.<anonymous> (/srv/node_modules/x/index.js:1:2)',
);

const hostileString = fc.oneof(
  nastyConstants,
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'binary-ascii', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.tuple(fc.string({ maxLength: 10 }), loneSurrogates, fc.string({ maxLength: 10 })).map((parts) => parts.join('')),
  longString,
);

const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 1, 2, 50, 100, 101, 500, 501, 1.5, 2 ** 53 + 2, 1e308, -1e308, 5e-324),
  fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '1.0', '1e2', '-0', '0.0000001e-400').map((t) => new RawJson(t)),
);

const deepNesting = fc
  .tuple(fc.integer({ min: 17, max: 5000 }), fc.constantFrom('array', 'object'))
  .map(([depth, shape]) =>
    shape === 'array' ? new RawJson('['.repeat(depth) + ']'.repeat(depth)) : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  );

const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'user_id', 'text', '', '\u0000', '\ud800'),
  fc.string({ unit: 'binary', maxLength: 10 }),
);

const hostileLeaf: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileLeaf },
  { weight: 1, arbitrary: fc.array(hostileLeaf, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.array(fc.tuple(hostileKey, hostileLeaf), { maxLength: 5 }).map((e) => new Entries(e)) },
  {
    weight: 1,
    arbitrary: fc.constant(
      new RawJson('{"__proto__":{"polluted":true,"user_id":"u1"},"constructor":{"prototype":{"polluted":true}}}'),
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deepNesting },
);

/** Mostly plausible values for a field, sometimes hostile ones. */
const field = (...valid: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 6, arbitrary: fc.oneof(...valid) }, { weight: 1, arbitrary: hostileValue });

/** Ids from a small pool (so owners, repeats and conflicts happen) or a larger one (so new things are made). */
const someId = (prefix: string) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(`${prefix}1`, `${prefix}2`, `${prefix}3`) },
    { weight: 1, arbitrary: fc.integer({ min: 4, max: 10_000 }).map((n) => `${prefix}${n}`) },
  );
/** An optional id: usually an id, sometimes null ("not given"). */
const someIdOrNull = (prefix: string) => fc.oneof({ weight: 5, arbitrary: someId(prefix) }, { weight: 1, arbitrary: fc.constant(null) });
const timestamp = fc.oneof(
  { weight: 4, arbitrary: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()) },
  fc.constantFrom(
    '2026-11-22T10:15:30.123Z',
    '2026-11-22T10:15:30Z',
    '2026-11-22T10:15:30.123+05:30',
    '2026-11-22T10:15:30',
    '2026-02-30T10:15:30.123Z',
    '0000-01-01T00:00:00.000Z',
    '9999-12-31T23:59:59.999-23:59',
    '2026-11-22',
    'yesterday',
  ),
);
const smallMetadata = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
  { weight: 2, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.constant(new RawJson(`{"big":"${'m'.repeat(17_000)}"}`)) },
);
const messageText = fc.oneof(fc.constantFrom('hello', 'hi there', 'I feel sad today', 'x'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }));

const messageFields = {
  message_id: field(someIdOrNull('m')),
  role: field(fc.constantFrom('user', 'assistant', 'system', 'user', 'assistant', 'robot')),
  text: field(messageText),
  created_at: field(timestamp),
  metadata: field(smallMetadata),
};

const FIELDS = {
  text: field(messageText),
  user_id: field(someId('u')),
  conversation_id: field(someIdOrNull('c')),
  message_id: messageFields.message_id,
  role: messageFields.role,
  created_at: messageFields.created_at,
  metadata: messageFields.metadata,
  limit: field(fc.constantFrom(1, 2, 50, 100, 500)),
  order: field(fc.constantFrom('asc', 'desc')),
  cursor: field(fc.constant(null), fc.base64String({ maxLength: 40 }), fc.string({ maxLength: 20 })),
  message_ids: field(fc.array(someId('m'), { maxLength: 4 }), fc.constant([])),
  all: field(fc.boolean()),
  session_id: field(someIdOrNull('s')),
  title: field(fc.constantFrom('A title', null), fc.string({ maxLength: 30 })),
  started_at: field(timestamp, fc.constant(null)),
  ended_at: field(timestamp, fc.constant(null)),
  messages: field(fc.array(fc.record(messageFields, { requiredKeys: ['role', 'text'] }), { maxLength: 4 })),
};
type FieldName = keyof typeof FIELDS;
const ALL_FIELDS = Object.keys(FIELDS) as FieldName[];

const pick = (names: readonly FieldName[]) => Object.fromEntries(names.map((name) => [name, FIELDS[name]])) as Record<string, fc.Arbitrary<unknown>>;

// ---------------------------------------------------------------------------------------
// Requests.

interface FuzzRequest {
  kind: string;
  query: string;
  body?: string | Uint8Array;
  headers: Record<string, string>;
}

const requestIdHeader = fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 140 }), { freq: 4 });

const jsonContentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON;charset=UTF-8',
  'application/vnd.api+json',
);

const otherContentType = fc.constantFrom(
  undefined,
  '',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/xml',
  'application/jsonx',
  'json',
  '*/*',
  ';;;',
  'application/json; charset',
  'application/json; charset=utf-16le',
  'application/json; charset=no-such-charset',
);

/** A JSON text sent as JSON. */
const jsonRequest = (kind: string, text: fc.Arbitrary<string>) =>
  fc.record({ text, contentType: jsonContentType, requestId: requestIdHeader }).map(
    ({ text: body, contentType, requestId }): FuzzRequest => ({
      kind,
      query: '',
      body,
      headers: { 'content-type': contentType, ...(requestId === null ? {} : { 'x-request-id': requestId }) },
    }),
  );

const oversizedBody = fc
  .integer({ min: BODY_LIMIT - 64, max: BODY_LIMIT + 4096 })
  .map((size) => `{"text":"${'a'.repeat(Math.max(0, size - 12))}"}`);

const contentEncoding = fc.constantFrom(undefined, undefined, undefined, undefined, 'identity', 'gzip', 'deflate', 'br', 'x-unknown');

/** Random bytes (sometimes behind a JSON-looking prefix, sometimes really gzipped JSON) with any content type. */
const bytesRequest = fc
  .record({
    bytes: fc.oneof(
      fc.uint8Array({ maxLength: 512 }),
      fc.tuple(fc.constantFrom('{', '{"user_id":', '[', '"', '{"text":"'), fc.uint8Array({ maxLength: 64 })).map(
        ([prefix, tail]) => new Uint8Array([...new TextEncoder().encode(prefix), ...tail]),
      ),
      fc.constant(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"text":"hi","user_id":"u1"}')])),
      fc.constant(new Uint8Array([0xed, 0xa0, 0x80])), // a UTF-8-encoded lone surrogate
    ),
    contentType: fc.oneof(jsonContentType, otherContentType),
    encoding: contentEncoding,
    gzipped: fc.boolean(),
  })
  .map(({ bytes, contentType, encoding, gzipped }): FuzzRequest => {
    const headers: Record<string, string> = {};
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (encoding !== undefined) headers['content-encoding'] = encoding;
    const body = encoding === 'gzip' && gzipped ? new Uint8Array(gzipSync(bytes)) : bytes;
    return { kind: 'bytes', query: '', body, headers };
  });

const queryKey = (keys: readonly string[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', '', 'x', `${keys[0]}[]`) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) });

const queryValue = fc.oneof(
  fc.constantFrom('u1', 'u2', 'c1', 'm1,m2', 'm1,,m3', ',', '1', '20', '100', '0', '101', '-1', '2.5', '1e400', 'NaN', 'true', 'false', 'abc', ''),
  fc.base64String({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  longString.map((s) => s.slice(0, 3000)),
);

/** Lone surrogates cannot be percent-encoded (encodeURIComponent throws): they become U+FFFD. */
const wellFormed = (text: string) => text.replace(/[\ud800-\udfff]/gu, '\ufffd');
const asQueryValue = (value: unknown) => wellFormed(typeof value === 'string' ? value : writeJson(value));

/** Query strings: plausible fields with mixed values, random encoded pairs, raw printable ASCII, broken percent-escapes. */
const queryString = (keys: readonly string[], plausible: Record<string, fc.Arbitrary<unknown>>, required: readonly string[]) =>
  fc
    .oneof(
      fc
        .record(plausible, { requiredKeys: [...required] })
        .map((query) => Object.entries(query).map(([k, v]) => `${k}=${encodeURIComponent(asQueryValue(v))}`)),
      fc.array(
        fc.oneof(
          { weight: 6, arbitrary: fc.tuple(queryKey(keys), queryValue).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(wellFormed(v))}`) },
          { weight: 1, arbitrary: fc.tuple(queryKey(keys), fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%ff', '%C0%AF', '%ED%A0%80', '%%', '+', '%2C%2C')).map(([k, v]) => `${encodeURIComponent(k)}=${v}`) },
          { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((s) => s.replace(/#/g, '%23')) },
        ),
        { maxLength: 6 },
      ),
    )
    // Bounded below Node's 16 KiB header limit: longer request lines are refused by Node's
    // HTTP parser (431, empty body) before the application sees them.
    .map((parts) => (parts.length ? `?${parts.join('&')}` : '').slice(0, 8192));

function bodyRequests(fields: readonly FieldName[], required: readonly FieldName[]): fc.Arbitrary<FuzzRequest> {
  const shaped = (requiredKeys: readonly FieldName[], names = fields) => fc.record(pick(names), { requiredKeys: [...requiredKeys] });
  const anything = fc.anything({
    key: hostileKey,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withTypedArray: true,
    withSparseArray: true,
    withUnicodeString: true,
  });
  const withExtraKeys = fc
    .tuple(shaped(required), fc.array(fc.tuple(hostileKey, hostileValue), { minLength: 1, maxLength: 3 }))
    .map(([body, extra]) => new Entries([...Object.entries(body), ...extra]));
  return fc.oneof(
    { weight: 6, arbitrary: jsonRequest('shaped', shaped(required).map(writeJson)) },
    { weight: 1, arbitrary: jsonRequest('shaped-optional', shaped([]).map(writeJson)) },
    { weight: 1, arbitrary: jsonRequest('shaped-all-fields', shaped([], ALL_FIELDS).map(writeJson)) },
    { weight: 1, arbitrary: jsonRequest('shaped-extra-keys', withExtraKeys.map(writeJson)) },
    { weight: 1, arbitrary: jsonRequest('jsonValue', fc.jsonValue().map((v) => JSON.stringify(v))) },
    { weight: 1, arbitrary: jsonRequest('jsonValue-unicode', fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }).map((v) => JSON.stringify(v))) },
    { weight: 1, arbitrary: jsonRequest('anything', anything.map(jsonSafe)) },
    { weight: 1, arbitrary: jsonRequest('hostile-top-level', hostileValue.map(writeJson)) },
    { weight: 1, arbitrary: jsonRequest('oversized', oversizedBody) },
    { weight: 3, arbitrary: bytesRequest },
  );
}

// ---------------------------------------------------------------------------------------
// The property.

const STACK_MARKERS: RegExp[] = [/ {4}at /, /node_modules/, /\bat \S+ \(.*:\d+:\d+\)/, /\bfile:\/\//, /\.(?:ts|js):\d+:\d+/];
/**
 * Markers some request has carried so far. Stored text comes back in later responses (a
 * listing, a loaded page, the assistant echoing the user), so a marker only counts as a
 * leak in a success body if no client ever sent it; error bodies echo nothing stored.
 */
const markersSent = new Set<RegExp>();

function requestText(path: string, request: FuzzRequest): string {
  const body = request.body === undefined ? '' : typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
  return `${path}${request.query}\n${body}`;
}

function describeResponse(response: CallResult): string {
  return `${response.status} ${response.headers.get('content-type') ?? '(no content-type)'} ${response.text.slice(0, 500)}`;
}

function expectWithinContract(path: string, request: FuzzRequest, response: CallResult): void {
  const seen = describeResponse(response);
  expect(response.status, `status outside the contract: ${seen}`).to.not.equal(500);
  expect(ALLOWED_STATUSES, `status outside the contract: ${seen}`).to.include(response.status);

  const requestId = response.headers.get('x-request-id');
  expect(requestId, `no X-Request-Id: ${seen}`).to.be.a('string').and.not.equal('');
  const sentId = request.headers['x-request-id']?.trim(); // fetch trims header values
  if (sentId !== undefined && /^[\x20-\x7e]{1,128}$/.test(sentId)) {
    expect(requestId, `the client's X-Request-Id ${JSON.stringify(sentId)} was not echoed: ${seen}`).to.equal(sentId);
  }

  if (response.status >= 300) {
    expect(response.headers.get('content-type') ?? '', `error without a JSON content type: ${seen}`).to.match(/^application\/json\b/);
    expect(response.json, `error body is not a JSON object: ${seen}`).to.be.an('object');
    expect(response.json.status, `error body without status "error": ${seen}`).to.equal('error');
    expect(response.json.detail, `error body without a detail: ${seen}`).to.be.a('string');
    expect((response.json.detail as string).trim(), `error body with an empty detail: ${seen}`).to.not.equal('');
  } else {
    expect(response.json, `2xx body is not a JSON object: ${seen}`).to.be.an('object');
    expect(response.json.status, `2xx body without status "ok": ${seen}`).to.equal('ok');
  }

  const sent = requestText(path, request);
  for (const marker of STACK_MARKERS) {
    if (marker.test(sent)) markersSent.add(marker);
    if (marker.test(sent) || (response.status < 300 && markersSent.has(marker))) continue;
    expect(marker.test(response.text), `response looks like it carries a stack trace (${marker}): ${seen}`).to.equal(false);
  }
}

function fuzzParameters(): fc.Parameters<[FuzzRequest]> {
  const seed = process.env.FC_SEED;
  const path = process.env.FC_PATH;
  return {
    numRuns: RUNS,
    ...(seed !== undefined ? { seed: Number(seed) } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  requests: fc.Arbitrary<FuzzRequest>;
}

const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: '/v1/chat', requests: bodyRequests(['text', 'user_id', 'conversation_id', 'message_id'], ['text', 'user_id']) },
  {
    method: 'POST',
    path: '/api/chat/saveMessage',
    requests: bodyRequests(['user_id', 'conversation_id', 'role', 'text', 'message_id', 'created_at', 'metadata'], ['user_id', 'conversation_id', 'role', 'text']),
  },
  {
    method: 'POST',
    path: '/api/chat/loadMessages',
    requests: bodyRequests(['user_id', 'conversation_id', 'limit', 'order', 'cursor'], ['user_id', 'conversation_id']),
  },
  {
    method: 'DELETE',
    path: '/api/chat/deleteMessages',
    requests: fc
      .tuple(
        fc.oneof(bodyRequests(['user_id', 'conversation_id', 'message_ids', 'all'], ['user_id', 'conversation_id']), fc.constant<FuzzRequest>({ kind: 'no-body', query: '', headers: {} })),
        fc.option(
          queryString(['user_id', 'conversation_id', 'message_ids', 'all'], {
            user_id: FIELDS.user_id,
            conversation_id: field(someId('c')),
            message_ids: field(fc.array(someId('m'), { maxLength: 4 }).map((ids) => ids.join(','))),
            all: field(fc.constantFrom('true', 'false')),
          }, ['user_id', 'conversation_id']),
          { freq: 2 },
        ),
      )
      .map(([request, query]) => ({ ...request, query: query ?? '' })),
  },
  {
    method: 'POST',
    path: '/api/chat/saveSession',
    requests: bodyRequests(
      ['user_id', 'conversation_id', 'session_id', 'title', 'started_at', 'ended_at', 'metadata', 'messages'],
      ['user_id', 'conversation_id'],
    ),
  },
  {
    method: 'GET',
    path: '/api/chat/conversations',
    requests: fc
      .tuple(
        queryString(['user_id', 'limit', 'cursor'], {
          user_id: FIELDS.user_id,
          limit: field(fc.integer({ min: 1, max: 100 })),
          cursor: field(fc.base64String({ maxLength: 40 }), fc.string({ maxLength: 20 })),
        }, ['user_id']),
        requestIdHeader,
      )
      .map(([query, requestId]): FuzzRequest => ({ kind: 'query', query, headers: requestId === null ? {} : { 'x-request-id': requestId } })),
  },
];

describe('HTTP fuzzing: every request gets an answer within the contract', function () {
  this.timeout(180_000);
  let service: TestService;

  before(async () => {
    service = await startTestService();
  });

  after(async () => {
    await service?.stop();
  });

  async function expectHealthy(): Promise<void> {
    const health = await service.call('GET', '/v1/health');
    expect(health.status, `health after fuzzing: ${describeResponse(health)}`).to.equal(200);
    expect(health.json).to.include({ status: 'ok' });
  }

  for (const { method, path, requests } of ENDPOINTS) {
    it(`${method} ${path}`, async () => {
      let failure: unknown;
      try {
        await fc.assert(
          fc.asyncProperty(requests, async (request) => {
            const response = await service.call(method, path + request.query, {
              ...(request.body !== undefined ? { raw: request.body } : {}),
              headers: request.headers,
            });
            expectWithinContract(path, request, response);
          }),
          fuzzParameters(),
        );
      } catch (error) {
        failure = error;
      }
      // Whatever the property found, the service must still be serving.
      await expectHealthy();
      if (failure !== undefined) throw failure;
    });
  }
});
