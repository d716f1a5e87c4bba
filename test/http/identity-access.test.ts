import { expect } from 'chai';
import { createLogger } from '../../src/bootstrap/logger.js';
import { newApiKey, startIdentityTestService, type IdentityTestService } from '../support/identity-service.js';
import { uid } from '../support/ids.js';
import type { CallResult } from '../support/service.js';

const FORBIDDEN = { detail: "user_id: names another user than the one authenticated (leave it out, or send the token's own)", status: 'error' };

/** What a caller with identity on may reach, and as whom. */
describe('identity: who may call what (AUTH_MODE=oidc)', () => {
  let service: IdentityTestService;
  const logLines: string[] = [];
  /** Every credential sent by this file: none may appear in the log. */
  const sent = new Set<string>();
  before(async () => {
    const logger = createLogger({ logLevel: 'debug', logFormat: 'json' }, { write: (line: string) => void logLines.push(line) });
    service = await startIdentityTestService({}, { logger });
    sent.add(service.apiKeys.anyUser).add(service.apiKeys.mapped);
  });
  after(() => service?.stop());

  const tokenOf = async (user: string) => {
    const token = await service.provider.token(user);
    sent.add(token);
    return token;
  };
  const as = (credential: string, body?: unknown) => ({ headers: { authorization: `Bearer ${credential}` }, ...(body === undefined ? {} : { body }) });

  it("open without a credential: health, readiness, the OpenAPI document, the explorer and the demo page's files", async () => {
    for (const path of ['/v1/health', '/v1/health/ready', '/openapi.json', '/docs', '/docs/init.js', '/docs/swagger-ui.css', '/', '/index.html', '/app.js']) {
      expect((await service.bare('GET', path)).status, path).to.equal(200);
    }
    expect((await service.bare('HEAD', '/v1/health')).status).to.equal(200);
    expect((await service.bare('GET', '/no/such/path')).status).to.equal(404);
  });

  it('every other documented operation answers 401 without a credential, however its path is spelled', async () => {
    const document = (await service.bare('GET', '/openapi.json')).json;
    const closed: string[] = [];
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, { security?: unknown[] }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.security?.length === 0) continue;
        const path = template.replace(/\{[^}]+\}/g, 'x');
        const res = await service.bare(method.toUpperCase(), path);
        expect(res.status, `${method} ${path}`).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal('Bearer');
        closed.push(`${method} ${template}`);
      }
    }
    expect(closed).to.include.members(['post /v1/chat', 'post /v1/chat/stream', 'get /api/chat/conversations', 'delete /api/chat/deleteMessages', 'get /api/tts', 'get /api/ai/traits', 'get /metrics']);
    for (const path of ['/API/CHAT/CONVERSATIONS', '/api/chat/conversations/', '/api//chat/conversations', '/api/chat/conversations;x', '/api/chat/%63onversations']) {
      const res = await service.bare('GET', path);
      expect([401, 404], `${path}: ${res.status}`).to.include(res.status);
    }
  });

  it('user_id may be left out in bodies and queries: the token names the user', async () => {
    const alice = uid('alice');
    const token = await tokenOf(alice);
    const conversationId = uid('conv');
    const saved = await service.bare('POST', '/api/chat/saveMessage', as(token, { conversation_id: conversationId, role: 'user', text: 'hi' }));
    expect(saved.status).to.equal(201);
    expect(saved.json.message.user_id).to.equal(alice);
    const session = await service.bare('POST', '/api/chat/saveSession', as(token, { conversation_id: conversationId, title: 'Mine', user_id: alice }));
    expect(session.json.session).to.include({ user_id: alice, message_count: 1 });
    const stream = await service.bare('POST', '/v1/chat/stream', as(token, { text: 'hello', conversation_id: conversationId }));
    expect(stream.text).to.match(/^event: done$/m);
    const listed = await service.bare('GET', '/api/chat/conversations?limit=5', as(token));
    expect(listed.json.conversations).to.have.length(1);
    expect(listed.json.conversations[0]).to.include({ conversation_id: conversationId, title: 'Mine', message_count: 3 });
    const deleted = await service.bare('DELETE', `/api/chat/deleteMessages?conversation_id=${conversationId}&all=true`, as(token));
    expect(deleted.json).to.deep.equal({ status: 'ok', deleted: 3 });
  });

  it("a user_id naming another user is 403 wherever it is sent, and changes nothing; another user's conversation stays 404", async () => {
    const bob = uid('bob');
    const bobs = { user_id: bob, conversation_id: uid('conv') };
    const stored = await service.bare('POST', '/api/chat/saveMessage', as(await tokenOf(bob), { ...bobs, role: 'user', text: 'private' }));
    const messageId = stored.json.message.message_id;
    const alice = await tokenOf(uid('alice'));
    const attempts: [string, string, unknown?][] = [
      ['POST', '/v1/chat', { ...bobs, text: 'hi' }],
      ['POST', '/v1/chat/stream', { ...bobs, text: 'hi' }],
      ['POST', '/api/chat/saveMessage', { ...bobs, role: 'user', text: 'hi' }],
      ['POST', '/api/chat/loadMessages', bobs],
      ['POST', '/api/chat/saveSession', bobs],
      ['DELETE', '/api/chat/deleteMessages', { ...bobs, all: true }],
      ['DELETE', `/api/chat/deleteMessages?user_id=${bob}&conversation_id=${bobs.conversation_id}&all=true`],
      ['DELETE', `/api/chat/deleteMessages?user_id=${bob}`, { conversation_id: bobs.conversation_id, all: true }],
      ['GET', `/api/chat/conversations?user_id=${bob}`],
      ['GET', `/api/tts?message_id=${messageId}&user_id=${bob}`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await service.bare(method, path, as(alice, body));
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.json).to.deep.equal(FORBIDDEN);
    }
    expect((await service.bare('POST', '/api/chat/loadMessages', as(alice, { conversation_id: bobs.conversation_id }))).status).to.equal(404);
    const still = await service.bare('POST', '/api/chat/loadMessages', as(await tokenOf(bob), { conversation_id: bobs.conversation_id }));
    expect(still.json.messages.map((m: { text: string }) => m.text)).to.deep.equal(['private']);
  });

  it('a malformed user_id is the usual 400, not a 403', async () => {
    const token = await tokenOf(uid('alice'));
    const res = await service.bare('POST', '/v1/chat', as(token, { text: 'hi', user_id: '' }));
    expect(res.status).to.equal(400);
    expect(res.json.detail).to.match(/^user_id: /);
    expect((await service.bare('GET', '/api/chat/conversations?user_id=a&user_id=b', as(token))).status).to.equal(400);
  });

  describe('API keys', () => {
    const expectRefused = (res: CallResult) => {
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token", error_description="the token is not accepted"');
    };

    it('an unknown or revoked key is 401', async () => {
      const unknown = newApiKey();
      const altered = `${service.apiKeys.mapped.slice(0, -1)}${service.apiKeys.mapped.endsWith('A') ? 'B' : 'A'}`;
      sent.add(unknown).add(altered);
      expectRefused(await service.bare('GET', '/api/ai/traits', as(unknown)));
      expectRefused(await service.bare('GET', '/api/ai/traits', as(altered)));
    });

    it('a key mapped to one user acts as that user only', async () => {
      const key = service.apiKeys.mapped;
      const chat = await service.bare('POST', '/v1/chat', as(key, { text: 'report' }));
      expect(chat.status).to.equal(200);
      const loaded = await service.bare('POST', '/api/chat/loadMessages', as(key, { conversation_id: chat.json.conversation_id }));
      expect(loaded.json.messages[0].user_id).to.equal(service.apiKeys.mappedUser);
      expect((await service.bare('POST', '/v1/chat', as(key, { text: 'x', user_id: uid('other') }))).json).to.deep.equal(FORBIDDEN);
    });

    it('a key allowed to act for any user: the request names the user, and must', async () => {
      const key = service.apiKeys.anyUser;
      const carol = uid('carol');
      const chat = await service.bare('POST', '/v1/chat', as(key, { text: 'hi', user_id: carol }));
      expect(chat.status).to.equal(200);
      const listed = await service.bare('GET', `/api/chat/conversations?user_id=${carol}`, as(key));
      expect(listed.json.conversations.map((c: { conversation_id: string }) => c.conversation_id)).to.deep.equal([chat.json.conversation_id]);
      expect((await service.bare('POST', '/v1/chat', as(key, { text: 'hi' }))).json.detail).to.equal('user_id: is required');
    });
  });

  it('the OpenAPI document declares the bearer scheme, which operations need it, their 401 and 403, and user_id optional', async () => {
    const document = (await service.bare('GET', '/openapi.json')).json;
    expect(document.components.securitySchemes.bearer).to.include({ type: 'http', scheme: 'bearer' });
    const chat = document.paths['/v1/chat'].post;
    expect(chat.security).to.deep.equal([{ bearer: [] }]);
    expect(chat.responses).to.include.keys('401', '403', '503');
    expect(chat.responses['401'].headers['WWW-Authenticate'].required).to.equal(true);
    expect(chat.requestBody.content['application/json'].schema.required ?? []).to.deep.equal([]); // text: unless regenerating
    const list = document.paths['/api/chat/conversations'].get.parameters.find((p: { name: string }) => p.name === 'user_id');
    expect(list.required).to.equal(false);
    expect(document.paths['/v1/health'].get.security).to.deep.equal([]);
    expect(document.paths['/openapi.json'].get.security).to.deep.equal([]);
  });

  describe('afterwards', () => {
    it('no token, API key or Authorization header ever reaches the log', () => {
      expect(sent.size).to.be.above(5);
      const log = logLines.join('\n');
      expect(log).to.include('"msg":"request"'); // the access log did write
      for (const credential of sent) expect(log.includes(credential), 'a credential was logged').to.equal(false);
      const bearer = /.{0,200}bearer\s+[\w\-.~+/]{16,}.{0,100}/i.exec(log);
      expect(bearer?.[0], bearer?.[0]).to.equal(undefined);
    });
  });
});
