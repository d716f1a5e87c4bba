import { validate } from '@readme/openapi-parser';
import { expect } from 'chai';
import { createLogger } from '../../src/bootstrap/logger.js';
import { FakeSpeechSynthesizer } from '../support/fake-speech-synthesizer.js';
import { startTestService, type TestService } from '../support/service.js';

/** Every endpoint of docs/interface.md. */
const SEED_ENDPOINTS = [
  ['post', '/v1/chat'],
  ['post', '/v1/chat/stream'],
  ['post', '/api/chat/saveMessage'],
  ['post', '/api/chat/loadMessages'],
  ['delete', '/api/chat/deleteMessages'],
  ['post', '/api/chat/saveSession'],
  ['get', '/api/tts'],
  ['post', '/api/tts'],
  ['get', '/v1/health'],
  ['get', '/api/status/graphdb'],
  ['get', '/api/ai/traits'],
] as const;

describe('operations: OpenAPI, docs, metrics, CORS, logs', () => {
  let service: TestService;
  const lines: string[] = [];
  before(async () => {
    const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, { write: (line: string) => void lines.push(line) });
    service = await startTestService({ CORS_ORIGINS: 'https://app.example.com' }, { logger, speechSynthesizer: new FakeSpeechSynthesizer() });
  });
  after(() => service?.stop());

  describe('GET /openapi.json', () => {
    it('validates as OpenAPI 3.1', async () => {
      const res = await service.call('GET', '/openapi.json');
      expect(res.status).to.equal(200);
      expect(res.json.openapi).to.equal('3.1.0');
      const result = await validate(res.json);
      expect(result.valid, JSON.stringify(result)).to.equal(true);
    });

    it('lists every endpoint of the interface, with the JSON error body', async () => {
      const { json } = await service.call('GET', '/openapi.json');
      for (const [method, path] of SEED_ENDPOINTS) {
        expect(json.paths[path]?.[method], `${method} ${path}`).to.be.an('object');
      }
      expect(json.components.schemas.Error.required).to.include.members(['detail', 'status']);
      expect(json.paths['/v1/chat'].post.responses).to.include.keys('200', '400', '502', '504');
    });

    it('is generated from the validating schemas: required fields match what the route refuses', async () => {
      const { json } = await service.call('GET', '/openapi.json');
      const schema = json.paths['/v1/chat'].post.requestBody.content['application/json'].schema;
      // With identity on (npm run test:identity) user_id may be left out: the token names the user.
      // text may be left out only to regenerate a reply (then `regenerate` names it): not required in the document.
      expect(schema.required ?? []).to.have.members(process.env.TEST_AUTH_MODE === 'oidc' ? [] : ['user_id']);
      for (const field of ['text', 'user_id']) {
        const body: Record<string, string> = { text: 'hi', user_id: 'u' };
        delete body[field];
        expect((await service.post('/v1/chat', body)).json.detail).to.equal(`${field}: is required`);
      }
    });
  });

  it('GET /docs serves the API explorer from the package, with its own CSP', async () => {
    const page = await service.call('GET', '/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.text).to.include('swagger-ui-bundle.js');
    expect((await service.call('GET', '/docs/init.js')).text).to.include("url: '/openapi.json'");
    expect(page.headers.get('content-security-policy')).to.include("script-src 'self'");
    const script = await service.call('GET', '/docs/swagger-ui-bundle.js');
    expect(script.status).to.equal(200);
    expect(script.text.length).to.be.above(100_000);
    expect((await service.call('GET', '/docs/package.json')).status).to.equal(404);
  });

  it('GET /metrics counts requests by route and status, and times the model and speech', async () => {
    await service.post('/v1/chat', { text: 'count me', user_id: 'metrics-user' });
    await service.call('GET', '/api/tts?text=hello');
    await service.call('GET', '/api/tts?text=hello');
    const res = await service.call('GET', '/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    expect(res.text).to.match(/^http_requests_total\{method="POST",route="\/v1\/chat",status="200"\} [1-9]/m);
    expect(res.text).to.match(/^http_request_duration_seconds_count\{method="POST",route="\/v1\/chat",status="200"\} [1-9]/m);
    expect(res.text).to.match(/^chat_model_duration_seconds_count\{mode="complete",outcome="ok"\} [1-9]/m);
    expect(res.text).to.match(/^speech_synthesis_duration_seconds_count\{.*outcome="ok"\} 1$/m);
    expect(res.text).to.match(/^speech_cache_lookups_total\{result="hit"\} [1-9]/m);
    expect(res.text).to.match(/^process_cpu_seconds_total/m);
    expect(res.text).to.not.include('metrics-user');
  });

  describe('CORS', () => {
    it('answers a preflight from a listed origin', async () => {
      const res = await service.call('OPTIONS', '/v1/chat', {
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
      expect(res.headers.get('access-control-allow-methods')).to.include('POST');
    });

    it("lets a listed origin PATCH a conversation and send the headers its preflight names (resume's Last-Event-ID, an OpenAI SDK's own)", async () => {
      const requested = 'content-type, last-event-id, x-stainless-os, x-stainless-retry-count';
      const res = await service.call('OPTIONS', '/api/chat/conversations/c1', {
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'PATCH', 'access-control-request-headers': requested },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-methods')!.split(',')).to.include('PATCH');
      expect(res.headers.get('access-control-allow-headers')).to.equal(requested);
    });

    it('gives other origins nothing, and exposes X-Request-Id to listed ones', async () => {
      const other = await service.call('GET', '/v1/health', { headers: { origin: 'https://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      const listed = await service.call('GET', '/v1/health', { headers: { origin: 'https://app.example.com' } });
      const exposed = listed.headers.get('access-control-expose-headers')!.split(',');
      expect(exposed).to.include.members(['X-Request-Id', 'ETag', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-tokens']);
    });

    it('is closed by default', async () => {
      const closed = await startTestService();
      try {
        const res = await closed.call('GET', '/v1/health', { headers: { origin: 'https://app.example.com' } });
        expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      } finally {
        await closed.stop();
      }
    });
  });

  it('logs one JSON line per request, without message texts', async () => {
    const secretText = 'my very private words';
    const res = await service.post('/v1/chat', { text: secretText, user_id: 'log-user' });
    const requestId = res.headers.get('x-request-id');
    const entries = lines.map((line) => JSON.parse(line)).filter((entry) => entry.requestId === requestId);
    expect(entries).to.have.length(1);
    expect(entries[0]).to.include({ method: 'POST', path: '/v1/chat', status: 200, msg: 'request' });
    expect(entries[0].durationMs).to.be.a('number');
    expect(lines.join('\n')).to.not.include(secretText);
  });
});
