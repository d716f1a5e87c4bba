import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, constants, createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { responseClosed, SseWriter } from '../../../src/adapters/http/sse-writer.js';
import { makeCertificate } from '../../support/tls-clients.js';

/**
 * SseWriter over HTTP/2 (the compatibility API under Koa): the response has no `destroyed` and
 * its `writableFinished` turns true on a reset too, so the writer must notice the client leaving
 * by other means.
 */
describe('SseWriter over HTTP/2', () => {
  let dir: string;
  let server: Http2SecureServer;
  let seen: Promise<{ goneAfterClose: boolean; closedAfterClose: boolean; endedByUs: boolean; sentAfterClose: number }>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sse-h2-'));
    const { certFile, keyFile } = makeCertificate(dir);
    const app = new Koa();
    let report: (value: Awaited<typeof seen>) => void;
    seen = new Promise((resolve) => (report = resolve));
    app.use(async (ctx) => {
      const sse = SseWriter.open(ctx, {}, 60_000);
      let closed = false;
      ctx.res.once('close', () => (closed = true));
      let sentAfterClose = 0;
      for (let i = 0; i < 200 && !sse.gone; i++) {
        if (closed) sentAfterClose++;
        sse.send([{ event: 'delta', data: JSON.stringify({ i }) }]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      report({ goneAfterClose: closed && sse.gone, closedAfterClose: responseClosed(ctx.res), endedByUs: ctx.res.writableEnded, sentAfterClose });
      sse.end();
    });
    server = createSecureServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), allowHTTP1: true }, app.callback());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees a client that resets the stream as gone, and stops writing', async () => {
    const session = connect(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, { rejectUnauthorized: false });
    try {
      const stream = session.request({ ':method': 'POST', ':path': '/' });
      stream.end();
      let chunks = 0;
      stream.on('data', () => {
        if (++chunks === 3) stream.close(constants.NGHTTP2_CANCEL);
      });
      const result = await seen;
      expect(result).to.deep.equal({ goneAfterClose: true, closedAfterClose: true, endedByUs: false, sentAfterClose: 0 });
    } finally {
      session.close();
    }
  });
});
