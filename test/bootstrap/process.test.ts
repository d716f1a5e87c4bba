import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { documentedFetch, expectDocumented, headerReader } from '../support/documented-responses.js';
import { killAllServiceProcesses, listeningUrl, spawnService } from '../support/service-process.js';

describe('the service process', function () {
  this.timeout(30_000);
  // A failed test must not leave a service running.
  afterEach(() => killAllServiceProcesses());

  it('a bad PORT stops start-up with one clear line and exit code 1', async () => {
    const run = spawnService({ PORT: 'eighty' });
    expect(await run.exited).to.equal(1);
    expect(run.output().stderr.trim()).to.equal('invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")');
  });

  it('a SEARCH_LANGUAGE the in-memory store does not know stops start-up with one line, as on PostgreSQL (stemming was silently off)', async () => {
    const run = spawnService({ SEARCH_LANGUAGE: 'klingon' });
    expect(await run.exited).to.equal(1);
    expect(run.output().stderr.trim()).to.match(/^invalid configuration: SEARCH_LANGUAGE "klingon" is not a text-search configuration the in-memory store knows \(it knows PostgreSQL's own: arabic, .*english, .*\)$/);
  });

  it('a port already in use stops start-up with one clear line and exit code 1', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as AddressInfo;
    try {
      const run = spawnService({ PORT: String(port) });
      expect(await run.exited).to.equal(1);
      expect(run.output().stderr).to.equal(`cannot listen on 127.0.0.1:${port}: the port is already in use (is another copy of the service running?)\n`);
    } finally {
      holder.close();
    }
  });

  it('an invalid PERSONA_FILE stops start-up with one clear line and exit code 1', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'persona-')), 'persona.json');
    writeFileSync(file, JSON.stringify({ name: 'X', description: 'd', traits: { openness: 2 }, descriptors: [], speaking_style: 's' }));
    const run = spawnService({ PORT: '0', PERSONA_FILE: file });
    expect(await run.exited).to.equal(1);
    const lines = run.output().stderr.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include(`persona file ${file} is invalid: traits.openness`);
  });

  it('a PERSONA_FILE replaces the default persona', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'persona-')), 'persona.json');
    const persona = {
      name: 'Orion',
      description: 'A terse ship computer.',
      traits: { openness: 0.1, conscientiousness: 1, extraversion: 0, agreeableness: 0.5, neuroticism: 0 },
      descriptors: ['terse'],
      speaking_style: 'Clipped.',
    };
    writeFileSync(file, JSON.stringify(persona));
    const run = spawnService({ PORT: '0', PERSONA_FILE: file });
    try {
      const url = await listeningUrl(run, 10_000);
      const traits = await (await documentedFetch(`${url}/api/ai/traits`)).json();
      expect(traits).to.deep.equal({ status: 'ok', ...persona });
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });

  it('SIGTERM lets an in-flight request finish, refuses new connections, and exits 0', async () => {
    const run = spawnService({ PORT: '0' });
    const url = await listeningUrl(run, 10_000);
    // A request whose body arrives slowly is in flight when the signal comes.
    const { request } = await import('node:http');
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = request(`${url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          expectDocumented(`${url}/v1/chat`, 'POST', { status, header: headerReader(res.headers), body }).then(() => resolve(status), reject);
        });
      });
      req.on('error', reject);
      req.write('{"text":"still there?",');
      setTimeout(() => req.end('"user_id":"u"}'), 500);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    run.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A plain fetch: no answer is expected, and a drift error must not pass for a refusal.
    const refused = await fetch(`${url}/v1/health`).then(
      () => false,
      () => true,
    );
    expect(await inFlight).to.equal(200);
    expect(refused).to.equal(true);
    expect(await run.exited).to.equal(0);
  });

  it('SIGTERM during a streamed reply lets it finish, refuses new connections, and exits 0', async () => {
    const run = spawnService({ PORT: '0', OFFLINE_STREAM_DELAY_MS: '150' });
    const url = await listeningUrl(run, 10_000);
    const response = await documentedFetch(`${url}/v1/chat/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello! Who are you and what can you do?', user_id: 'shutdown' }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('event: delta')) received += decoder.decode((await reader.read()).value);
    run.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A plain fetch: no answer is expected, and a drift error must not pass for a refusal.
    const refused = await fetch(`${url}/v1/health`).then(
      () => false,
      () => true,
    );
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += decoder.decode(value);
    }
    expect(refused, 'new connections are refused while draining').to.equal(true);
    expect(received).to.include('event: done');
    const deltas = [...received.matchAll(/event: delta\n(?:id: \d+\n)?data: (.*)\n/g)].map((m) => JSON.parse(m[1]!).text).join('');
    const done = JSON.parse(/event: done\n(?:id: \d+\n)?data: (.*)\n/.exec(received)![1]!);
    expect(deltas).to.equal(done.response);
    expect(await run.exited).to.equal(0);
  });
});
