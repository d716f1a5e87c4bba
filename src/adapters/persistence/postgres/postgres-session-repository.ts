import type { SessionRepository } from '../../../application/ports/session-repository.js';
import type { Session } from '../../../domain/session.js';
import { toSession, type SessionRow } from './rows.js';
import { sql, type Statements } from './statements.js';

export class PostgresSessionRepository implements SessionRepository {
  constructor(private readonly db: Statements) {}

  async findById(sessionId: string): Promise<Session | null> {
    const [row] = await this.db.rows<SessionRow>(sql`select * from sessions where session_id = ${sessionId}`);
    return row ? toSession(row) : null;
  }

  async create(session: Session): Promise<boolean> {
    const s = session.toProps();
    // A concurrent insert of the same id is waited for: once it commits, this one inserts nothing.
    const inserted = await this.db.changed(
      sql`insert into sessions (session_id, conversation_id, user_id, title, started_at, ended_at, metadata, created_at, updated_at)
       values (${s.sessionId}, ${s.conversationId}, ${s.userId}, ${s.title}, ${s.startedAt}, ${s.endedAt}, ${JSON.stringify(s.metadata)}::jsonb, ${s.createdAt}, ${s.updatedAt})
       on conflict (session_id) do nothing`,
    );
    return inserted > 0;
  }

  async save(session: Session): Promise<void> {
    const s = session.toProps();
    await this.db.changed(
      sql`insert into sessions (session_id, conversation_id, user_id, title, started_at, ended_at, metadata, created_at, updated_at)
       values (${s.sessionId}, ${s.conversationId}, ${s.userId}, ${s.title}, ${s.startedAt}, ${s.endedAt}, ${JSON.stringify(s.metadata)}::jsonb, ${s.createdAt}, ${s.updatedAt})
       on conflict (session_id) do update set
         title = excluded.title, started_at = excluded.started_at, ended_at = excluded.ended_at,
         metadata = excluded.metadata, updated_at = excluded.updated_at`,
    );
  }
}
