import type { ConversationPage, ConversationPosition, ConversationRepository } from '../../../application/ports/conversation-repository.js';
import { conversationTitle, type Conversation } from '../../../domain/conversation.js';
import { toConversation, toDate, type ConversationRow } from './rows.js';
import { empty, sql, type Statements } from './statements.js';

type SummaryRow = ConversationRow & { message_count: number; session_title: string | null; first_text: string | null };

/** Conversations in PostgreSQL; each method is one statement. */
export class PostgresConversationRepository implements ConversationRepository {
  constructor(private readonly db: Statements) {}

  async findById(conversationId: string): Promise<Conversation | null> {
    const [row] = await this.db.rows<ConversationRow>(sql`select * from conversations where conversation_id = ${conversationId}`);
    return row ? toConversation(row) : null;
  }

  async listByUser(userId: string, limit: number, after: ConversationPosition | null): Promise<ConversationPage> {
    const seek = after ? sql`and (c.active_at, c.conversation_id) < (${after.activeAt}, ${after.conversationId})` : empty;
    // Counts live on the conversation row; the title is two index lookups per listed conversation.
    const rows = await this.db.rows<SummaryRow>(
      sql`/* conversations.list_by_user */ select c.*,
         (select s.title from sessions s where s.conversation_id = c.conversation_id and s.title is not null
            order by s.updated_at desc limit 1) as session_title,
         (select m.text from messages m where m.conversation_id = c.conversation_id
            order by m.created_at, m.seq limit 1) as first_text
       from conversations c
       where c.user_id = ${userId} ${seek}
       order by c.active_at desc, c.conversation_id desc
       limit ${limit + 1}`,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => ({
        conversation: toConversation(row),
        title: conversationTitle(row.session_title, row.first_text),
        lastMessageAt: row.message_count > 0 ? toDate(row.active_at) : null,
        messageCount: row.message_count,
      })),
      next: rows.length > limit && last ? { activeAt: toDate(last.active_at), conversationId: last.conversation_id } : null,
    };
  }
}
