import { expect } from 'chai';
import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAllServiceProcesses, spawnService, waitForLog } from '../support/service-process.js';
import { http2Fetch, https1Fetch, makeCertificate } from '../support/tls-clients.js';

function swapLink(link: string, target: string): void {
  symlinkSync(target, `${link}.tmp`);
  renameSync(`${link}.tmp`, link);
}

describe('the service process over TLS', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tls-process-'))));
  afterEach(() => {
    killAllServiceProcesses();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS, re-reads its certificate on SIGHUP, and exits 0 on SIGTERM', async () => {
    const first = makeCertificate(dir, 'first');
    const second = makeCertificate(dir, 'second');
    swapLink(join(dir, 'tls.crt'), 'first.crt');
    swapLink(join(dir, 'tls.key'), 'first.key');
    const run = spawnService({ TLS_CERT_FILE: join(dir, 'tls.crt'), TLS_KEY_FILE: join(dir, 'tls.key') });
    const url = (await waitForLog(run, /"url":"(https:[^"]+)"/, 15_000))[1]!;
    const health = await http2Fetch(`${url}/v1/health`);
    expect(health).to.include({ status: 200, httpVersion: '2.0', fingerprint: first.fingerprint });
    expect(health.headers.get('strict-transport-security')).to.equal('max-age=15552000');

    swapLink(join(dir, 'tls.key'), 'second.key');
    swapLink(join(dir, 'tls.crt'), 'second.crt');
    run.child.kill('SIGHUP');
    await waitForLog(run, /TLS certificate reloaded \(SIGHUP\)/, 15_000);
    expect((await https1Fetch(`${url}/v1/health`)).fingerprint).to.equal(second.fingerprint);

    run.child.kill('SIGTERM');
    expect(await run.exited).to.equal(0);
  });

  it('a bad certificate stops start-up with one line and exit code 1', async () => {
    const { keyFile } = makeCertificate(dir);
    const certFile = join(dir, 'broken.crt');
    writeFileSync(certFile, '-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n');
    const run = spawnService({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile });
    expect(await run.exited).to.equal(1);
    expect(run.output().stderr.trim()).to.equal(`TLS_CERT_FILE ${certFile} holds no PEM certificate`);
  });

  it('one of the two TLS settings alone stops start-up with one line and exit code 1', async () => {
    const run = spawnService({ TLS_CERT_FILE: makeCertificate(dir).certFile });
    expect(await run.exited).to.equal(1);
    expect(run.output().stderr.trim()).to.equal('invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE go together: TLS_KEY_FILE is not set');
  });
});
