import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capturedLogger } from '../support/log-capture.js';
import { startTestService, type TestService } from '../support/service.js';
import { makeCertificate } from '../support/tls-clients.js';

/** The access-log line of the request with this X-Request-Id. */
function accessLine(lines: string[], requestId: string): Record<string, unknown> {
  const line = lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.msg === 'request' && entry.requestId === requestId);
  expect(line, `an access-log line for ${requestId}`).to.not.equal(undefined);
  return line!;
}

const FORGED = { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };

describe('TRUST_PROXY: forwarding headers count only from trusted proxies', () => {
  let service: TestService | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  async function start(environment: Record<string, string>) {
    const { logger, lines } = capturedLogger('info');
    service = await startTestService(environment, { logger });
    return { service, lines };
  }

  it('without TRUST_PROXY a forged X-Forwarded-For is ignored: the log shows the socket, no HSTS over plain HTTP', async () => {
    const { service, lines } = await start({});
    const res = await service.call('GET', '/v1/health', { headers: { ...FORGED, 'x-request-id': 'forged-1' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('strict-transport-security')).to.equal(null);
    expect(accessLine(lines, 'forged-1')).to.include({ client: '127.0.0.1', http: '1.1', method: 'GET', path: '/v1/health', status: 200 });
  });

  it('from an address outside TRUST_PROXY the headers are ignored too (Forwarded included)', async () => {
    const { service, lines } = await start({ TRUST_PROXY: '10.0.0.0/8,192.168.0.0/16' });
    const res = await service.call('GET', '/v1/health', { headers: { ...FORGED, forwarded: 'for=198.51.100.1;proto=https', 'x-request-id': 'forged-2' } });
    expect(res.headers.get('strict-transport-security')).to.equal(null);
    expect(accessLine(lines, 'forged-2').client).to.equal('127.0.0.1');
  });

  it('from a trusted proxy: the client address in the log, and HSTS when the client used https', async () => {
    const { service, lines } = await start({ TRUST_PROXY: 'loopback' });
    const https = await service.call('GET', '/v1/health', { headers: { ...FORGED, 'x-request-id': 'proxied-1' } });
    expect(https.headers.get('strict-transport-security')).to.equal('max-age=15552000');
    expect(accessLine(lines, 'proxied-1').client).to.equal('203.0.113.9');

    const http = await service.call('GET', '/v1/health', { headers: { 'x-forwarded-for': '203.0.113.10', 'x-forwarded-proto': 'http', 'x-request-id': 'proxied-2' } });
    expect(http.headers.get('strict-transport-security')).to.equal(null);
    expect(accessLine(lines, 'proxied-2').client).to.equal('203.0.113.10');
  });

  it('through a chain of trusted proxies the first untrusted hop from the right is the client', async () => {
    const { service, lines } = await start({ TRUST_PROXY: '127.0.0.1,10.0.0.0/8', HSTS_MAX_AGE_S: '600', HSTS_INCLUDE_SUBDOMAINS: 'true' });
    const res = await service.call('POST', '/api/chat/loadMessages', {
      body: { user_id: 'proxied', conversation_id: 'c' },
      headers: { 'x-forwarded-for': '198.51.100.66, 203.0.113.9, 10.1.2.3', 'x-forwarded-proto': 'https', 'x-request-id': 'chain-1' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('strict-transport-security')).to.equal('max-age=600; includeSubDomains');
    expect(accessLine(lines, 'chain-1')).to.include({ client: '203.0.113.9', path: '/api/chat/loadMessages' });
  });

  it('over its own TLS HSTS is sent even when a trusted proxy says the client used http', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trust-tls-'));
    try {
      const { certFile, keyFile } = makeCertificate(dir);
      const { service, lines } = await start({ TRUST_PROXY: 'loopback', TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile });
      const res = await service.call('GET', '/v1/health', { headers: { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http', 'x-request-id': 'tls-1' } });
      expect(res.headers.get('strict-transport-security')).to.equal('max-age=15552000');
      expect(accessLine(lines, 'tls-1')).to.include({ client: '203.0.113.9', http: '2.0' });
    } finally {
      await service?.stop(); // before its certificate's folder goes
      service = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads RFC 7239 Forwarded from a trusted proxy', async () => {
    const { service, lines } = await start({ TRUST_PROXY: '::1, 127.0.0.0/8' });
    const res = await service.call('GET', '/v1/health', { headers: { forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https', 'x-request-id': 'rfc-1' } });
    expect(res.headers.get('strict-transport-security')).to.equal('max-age=15552000');
    expect(accessLine(lines, 'rfc-1').client).to.equal('2001:db8:cafe::17');
  });
});
