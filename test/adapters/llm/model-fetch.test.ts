import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { bodyOf, modelFetch } from '../../../src/adapters/llm/openai/model-fetch.js';
import { freePort } from '../../support/free-port.js';

describe('modelFetch (the language model over node:http)', () => {
  let server: Server;
  let url: string;
  let seen: { method?: string; headers?: Record<string, unknown>; body?: string } = {};
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen = { method: req.method, headers: req.headers, body };
        if (req.url === '/stream') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: one\n\n');
          setTimeout(() => res.end('data: two\n\n'), 20);
        } else if (req.url === '/gzip') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"ok":true}'));
        } else if (req.url === '/redirect') {
          res.writeHead(302, { location: '/elsewhere' }).end();
        } else if (req.url === '/never') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(': waiting\n\n'); // and nothing more
        } else {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'x-request-id': 'r-1' }).end('{"error":{"message":"slow down"}}');
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const send = modelFetch();
  const read = async (chunks: AsyncIterable<Uint8Array>) => {
    let text = '';
    for await (const chunk of chunks) text += Buffer.from(chunk).toString('utf8');
    return text;
  };

  it('sends the method, headers and body; answers a Response with status, headers and the whole body', async () => {
    const response = await send(`${url}/json`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: '{"a":"é"}' });
    expect(seen).to.include({ method: 'POST', body: '{"a":"é"}' });
    expect(seen.headers).to.include({ authorization: 'Bearer k', 'content-length': String(Buffer.byteLength('{"a":"é"}')) });
    expect(response.status).to.equal(429);
    expect(response.ok).to.equal(false);
    expect(response.headers.get('retry-after')).to.equal('1');
    expect(response.headers.get('x-request-id')).to.equal('r-1');
    expect(await response.json()).to.deep.equal({ error: { message: 'slow down' } });
  });

  it("an event stream's body is read as it comes through bodyOf, or through Response.body by anyone else", async () => {
    expect(await read(bodyOf(await send(`${url}/stream`)))).to.equal('data: one\n\ndata: two\n\n');
    expect(await (await send(`${url}/stream`)).text()).to.equal('data: one\n\ndata: two\n\n');
  });

  it('a body the server compressed comes decompressed', async () => {
    expect(await (await send(`${url}/gzip`)).json()).to.deep.equal({ ok: true });
  });

  it("redirect: 'error' fails as fetch fails, with undici's words for it", async () => {
    const error = await send(`${url}/redirect`, { redirect: 'error' }).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(TypeError).with.property('message', 'fetch failed');
    expect((error as Error).cause).to.have.property('message', 'unexpected redirect');
  });

  it('nothing listening: TypeError "fetch failed" with the connection error as its cause', async () => {
    const port = await freePort();
    const error = await send(`http://127.0.0.1:${port}/x`).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(TypeError).with.property('message', 'fetch failed');
    expect((error as { cause?: { code?: string } }).cause?.code).to.equal('ECONNREFUSED');
  });

  it("a connection idle for close to the server's keep-alive time is not used again: the server may be closing it", async () => {
    // The server says it keeps a connection 2 s (Keep-Alive: timeout=2); the client gives it up a second before.
    const keeping = createServer((_req, res) => res.end('{}'));
    keeping.keepAliveTimeout = 2000;
    let connections = 0;
    keeping.on('connection', () => connections++);
    keeping.listen(0, '127.0.0.1');
    await once(keeping, 'listening');
    const at = `http://127.0.0.1:${(keeping.address() as AddressInfo).port}/`;
    try {
      await (await send(at)).text();
      await (await send(at)).text();
      expect(connections, 'one connection for two calls in a row').to.equal(1);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await (await send(at)).text();
      expect(connections, 'a new connection after 1.5 s idle').to.equal(2);
    } finally {
      keeping.closeAllConnections();
      keeping.close();
    }
  });

  it('an abort before the request, or while the body flows, ends it with an AbortError', async () => {
    const early = new AbortController();
    early.abort();
    const refused = await send(`${url}/json`, { signal: early.signal }).then(() => null, (e: unknown) => e);
    expect(refused).to.have.property('name', 'AbortError');

    const later = new AbortController();
    const response = await send(`${url}/never`, { signal: later.signal });
    setTimeout(() => later.abort(), 20);
    const stopped = await read(bodyOf(response)).then(() => null, (e: unknown) => e);
    expect(stopped).to.have.property('name', 'AbortError');
  });
});
