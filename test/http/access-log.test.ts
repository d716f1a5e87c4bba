import { expect } from 'chai';
import { capturedLogger } from '../support/log-capture.js';
import { uid } from '../support/ids.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The access log names no user: a path under /api/users/{user_id} is logged with the pattern,
 * whether a route answered it or the request was refused before one could (a wrong method, a
 * malformed query or path). After an erasure, no log line written later names that user.
 */
describe('the access log and paths that name a user', () => {
  let service: TestService;
  const { logger, lines } = capturedLogger('info');
  before(async () => {
    service = await startTestService({}, { logger });
  });
  after(() => service?.stop());

  it('logs /api/users/:user_id for every request under it, routed or refused', async () => {
    const user = uid('erased-carol');
    const requests = [
      ['DELETE', `/api/users/${user}`, 200],
      ['PUT', `/api/users/${user}`, 405],
      ['OPTIONS', `/api/users/${user}/export`, 200],
      ['GET', `/api/users/${user}/export?format=%FF`, 400],
      ['PATCH', `/api/users/${user}/import`, 405],
    ] as const;
    const from = lines.length;
    for (const [method, path, status] of requests) {
      const res = await service.call(method, path);
      expect(res.status, `${method} ${path}`).to.equal(status);
    }
    const written = lines.slice(from);
    expect(written.filter((line) => line.includes(user))).to.deep.equal([]);
    const paths = written.map((line) => JSON.parse(line) as { msg: string; path?: string }).filter((entry) => entry.msg === 'request').map((entry) => entry.path);
    expect(paths).to.deep.equal(['/api/users/:user_id', '/api/users/:user_id', '/api/users/:user_id/export', '/api/users/:user_id/export', '/api/users/:user_id/import']);
  });
});
