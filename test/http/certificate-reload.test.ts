import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateInvalidError } from '../../src/bootstrap/certificates.js';
import { loadConfig } from '../../src/bootstrap/config.js';
import { startService } from '../../src/bootstrap/server.js';
import { capturedLogger } from '../support/log-capture.js';
import { startTestService, type TestService } from '../support/service.js';
import { http2Fetch, https1Fetch, makeCertificate, openHttp2 } from '../support/tls-clients.js';

/** Replaces a symlink in one step, as certbot and Kubernetes do (a new link renamed over the old). */
function swapLink(link: string, target: string): void {
  const temporary = `${link}.tmp-${process.pid}`;
  symlinkSync(target, temporary);
  renameSync(temporary, link);
}

/** The fingerprint a new connection sees, once it is `expected` (the watch waits 1 s of quiet). */
async function waitForFingerprint(url: string, expected: string): Promise<string> {
  let seen = '';
  for (let i = 0; i < 100 && seen !== expected; i++) {
    seen = (await https1Fetch(`${url}/v1/health`)).fingerprint;
    if (seen !== expected) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return seen;
}

const messages = (lines: string[]) => lines.map((line) => JSON.parse(line) as { level: number; msg: string });

describe('TLS certificates are re-read without a restart', function () {
  this.timeout(20_000);
  let dir: string;
  let service: TestService | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cert-reload-'));
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('when certbot swaps the live/ symlinks: new connections get the new certificate, open ones keep theirs', async () => {
    mkdirSync(join(dir, 'archive'));
    mkdirSync(join(dir, 'live'));
    const first = makeCertificate(join(dir, 'archive'), 'cert1');
    const second = makeCertificate(join(dir, 'archive'), 'cert2', 'renewed.localhost');
    swapLink(join(dir, 'live', 'fullchain.pem'), '../archive/cert1.crt');
    swapLink(join(dir, 'live', 'privkey.pem'), '../archive/cert1.key');
    const { logger, lines } = capturedLogger('info');
    service = await startTestService({ TLS_CERT_FILE: join(dir, 'live', 'fullchain.pem'), TLS_KEY_FILE: join(dir, 'live', 'privkey.pem') }, { logger });
    const open = await openHttp2(service.url);
    try {
      expect((await http2Fetch(`${service.url}/v1/health`, {}, open)).fingerprint).to.equal(first.fingerprint);

      swapLink(join(dir, 'live', 'privkey.pem'), '../archive/cert2.key');
      swapLink(join(dir, 'live', 'fullchain.pem'), '../archive/cert2.crt');
      expect(await waitForFingerprint(service.url, second.fingerprint)).to.equal(second.fingerprint);
      expect((await http2Fetch(`${service.url}/v1/health`)).fingerprint, 'a new HTTP/2 connection').to.equal(second.fingerprint);
      const kept = await http2Fetch(`${service.url}/v1/health`, {}, open);
      expect(kept.status).to.equal(200);
      expect(kept.fingerprint, 'the connection opened before').to.equal(first.fingerprint);
      expect(messages(lines).map((m) => m.msg)).to.include(`TLS certificate reloaded (files changed): CN=renewed.localhost, valid until ${expiryOf(lines)}, SHA-256 ${second.fingerprint}`);
    } finally {
      open.close();
    }
  });

  it("when a Kubernetes secret's ..data symlink is swapped", async () => {
    const first = makeCertificate(mkdirIn(dir, '..2026_01'), 'tls');
    const second = makeCertificate(mkdirIn(dir, '..2026_02'), 'tls');
    swapLink(join(dir, '..data'), '..2026_01');
    swapLink(join(dir, 'tls.crt'), '..data/tls.crt');
    swapLink(join(dir, 'tls.key'), '..data/tls.key');
    service = await startTestService({ TLS_CERT_FILE: join(dir, 'tls.crt'), TLS_KEY_FILE: join(dir, 'tls.key') });
    expect((await https1Fetch(`${service.url}/v1/health`)).fingerprint).to.equal(first.fingerprint);
    swapLink(join(dir, '..data'), '..2026_02');
    expect(await waitForFingerprint(service.url, second.fingerprint)).to.equal(second.fingerprint);
  });

  it('a bad certificate at reload keeps the old one with a warning; SIGHUP (reloadCertificates) takes the new one at once', async () => {
    const first = makeCertificate(dir, 'first');
    const certFile = join(dir, 'server.crt');
    const keyFile = join(dir, 'server.key');
    const { logger, lines } = capturedLogger('info');
    swapLink(certFile, 'first.crt');
    swapLink(keyFile, 'first.key');
    service = await startTestService({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile }, { logger });

    rmSync(certFile);
    writeFileSync(certFile, 'not a certificate\n');
    expect(await service.reloadCertificates('SIGHUP')).to.equal(false);
    const warning = messages(lines).find((m) => m.level === 40 && m.msg.startsWith('TLS certificate not reloaded (SIGHUP)'));
    expect(warning?.msg).to.equal(`TLS certificate not reloaded (SIGHUP), the previous one stays: TLS_CERT_FILE ${certFile} holds no PEM certificate`);
    expect((await https1Fetch(`${service.url}/v1/health`)).fingerprint).to.equal(first.fingerprint);

    const other = makeCertificate(dir, 'other');
    rmSync(certFile);
    swapLink(certFile, 'other.crt'); // the key still belongs to the first certificate
    expect(await service.reloadCertificates('SIGHUP')).to.equal(false);
    expect(messages(lines).some((m) => m.level === 40 && / TLS_KEY_FILE .* is not the key of the certificate in TLS_CERT_FILE /.test(m.msg))).to.equal(true);
    expect((await https1Fetch(`${service.url}/v1/health`)).fingerprint).to.equal(first.fingerprint);

    swapLink(keyFile, 'other.key');
    expect(await service.reloadCertificates('SIGHUP')).to.equal(true);
    expect((await http2Fetch(`${service.url}/v1/health`)).fingerprint).to.equal(other.fingerprint);
    expect(await service.reloadCertificates('SIGHUP'), 'the same files again: nothing to do').to.equal(false);
  });

  it('TLS_CA_FILE: the intermediate certificates go out after the certificate', async () => {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    run('req', '-x509', ...ec, '-days', '1', '-subj', '/CN=Test Intermediate', '-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', 'ca.key', '-out', 'ca.crt');
    run('req', ...ec, '-subj', '/CN=localhost', '-keyout', 'leaf.key', '-out', 'leaf.csr');
    writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'leaf.ext', '-out', 'leaf.crt');
    service = await startTestService({ TLS_CERT_FILE: join(dir, 'leaf.crt'), TLS_KEY_FILE: join(dir, 'leaf.key'), TLS_CA_FILE: join(dir, 'ca.crt') });
    const { port } = new URL(service.url);
    // Not execFileSync: the service answers the handshake from this very process. An empty stdin ends s_client.
    const client = promisify(execFile)('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-showcerts'], { timeout: 10_000 });
    client.child.stdin?.end();
    const shown = (await client).stdout;
    const sent = [...shown.matchAll(/^ *\d+ s:(.*)$/gm)].map((m) => m[1]!.trim());
    expect(sent).to.deep.equal(['CN = localhost', 'CN = Test Intermediate']);
  });

  for (const [name, arrange, line] of [
    ['a missing file', () => ({ cert: join(dir, 'missing.crt'), key: makeCertificate(dir).keyFile }), (cert: string) => `TLS_CERT_FILE ${cert} cannot be read (ENOENT)`],
    ['a file that is no certificate', () => ({ cert: written(join(dir, 'junk.crt'), 'hello'), key: makeCertificate(dir).keyFile }), (cert: string) => `TLS_CERT_FILE ${cert} holds no PEM certificate`],
    ['a key of another certificate', () => ({ cert: makeCertificate(dir, 'a').certFile, key: makeCertificate(dir, 'b').keyFile }), (cert: string) => `TLS_KEY_FILE ${join(dir, 'b.key')} is not the key of the certificate in TLS_CERT_FILE ${cert}`],
    ['a key file that holds a certificate', () => ({ cert: makeCertificate(dir, 'c').certFile, key: join(dir, 'c.crt') }), () => `TLS_KEY_FILE ${join(dir, 'c.crt')} holds no PEM private key (or one protected by a passphrase)`],
  ] as const) {
    it(`start-up stops at ${name}, with one line`, async () => {
      const { cert, key } = arrange();
      const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TLS_CERT_FILE: cert, TLS_KEY_FILE: key });
      const failure = await startService(config).then(() => undefined, (error: unknown) => error);
      expect(failure).to.be.instanceOf(CertificateInvalidError);
      expect((failure as Error).message).to.equal(line(cert));
    });
  }
});

function mkdirIn(parent: string, name: string): string {
  mkdirSync(join(parent, name));
  return join(parent, name);
}

function written(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}

/** The validTo the service logged for the reloaded certificate (openssl chose it). */
function expiryOf(lines: string[]): string {
  const entry = lines.map((line) => JSON.parse(line) as { msg: string; validTo?: string }).filter((m) => m.validTo).at(-1);
  return entry!.validTo!;
}
