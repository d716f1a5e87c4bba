import { expect } from 'chai';
import pg from 'pg';
import { capturedLogger } from '../support/log-capture.js';
import { uid } from '../support/ids.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A statement PostgreSQL refuses is an unexpected fault (500, logged). Its log line must name the
 * error's class, SQLSTATE and statement, and hold nothing the user sent: knex puts the statement
 * with its values into the error's message and stack, and PostgreSQL adds `where` and `detail`
 * (pg's DatabaseError carries them).
 */
describe('database errors in the log (PostgreSQL store)', function () {
  this.timeout(60_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let service: TestService;
  const { logger, lines } = capturedLogger('debug');

  before(async function () {
    await requirePostgres(this);
    database = await createTestDatabase();
    service = await startTestService({ DATABASE_URL: database.url }, { logger });
    // Every insert into messages fails, inside the server, after the values were sent.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`
      create function refuse_messages() returns trigger language plpgsql as $$
      begin raise exception 'refused: %', new.text using detail = 'the row: ' || new.text || ' ' || new.metadata::text; end $$;
      create trigger refuse_messages before insert on messages for each row execute function refuse_messages();`);
    await client.end();
  });
  after(async () => {
    await service?.stop();
    await database?.drop();
  });

  const secret = () => `SECRET-${uid('text')}`;
  const faultLines = () => lines.filter((line) => line.includes('"unexpected fault"'));

  for (const [what, path, body, statement] of [
    ['saveMessage', '/api/chat/saveMessage', (text: string, meta: string) => ({ role: 'user', text, metadata: { note: meta } }), 'messages.append'],
    ['saveSession', '/api/chat/saveSession', (text: string, meta: string) => ({ title: 'a title', messages: [{ role: 'user', text, metadata: { note: meta } }] }), 'messages.append'],
    ['chat', '/v1/chat', (text: string) => ({ text }), 'replies.begin'],
    ['chat stream', '/v1/chat/stream', (text: string) => ({ text }), 'replies.begin'],
  ] as const) {
    it(`${what}: 500, and the log line names the fault without the text, metadata or statement values`, async () => {
      const [text, meta] = [secret(), secret()];
      const before = faultLines().length;
      const res = await service.post(path, { user_id: uid('user'), conversation_id: uid('conv'), ...body(text, meta) });
      expect(res.status).to.equal(500);
      expect(res.json).to.deep.equal({ detail: 'internal server error', status: 'error' });
      const logged = faultLines().slice(before);
      expect(logged).to.have.length(1);
      for (const line of lines) {
        expect(line).not.to.include(text);
        expect(line).not.to.include(meta);
      }
      expect(lines.join('\n')).not.to.match(/refused: |the row: |"(detail|where|sql|parameters|bindings)"/);
      const { err } = JSON.parse(logged[0]!);
      expect(err).to.include({ type: 'DatabaseError', code: 'P0001', statement });
      expect(err.stack).to.match(/^DatabaseError\n\s+at /);
    });
  }
});
