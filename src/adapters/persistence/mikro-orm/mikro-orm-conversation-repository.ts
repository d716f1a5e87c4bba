import type { Statements } from './statements.js';
import type {
  ConversationPage,
  ConversationPosition,
  ConversationRepository,
} from '../../../application/ports/conversation-repository.js';
import { conversationTitle, type Conversation } from '../../../domain/conversation.js';
import { toConversation, toDate, type ConversationRow } from './rows.js';

type SummaryRow = ConversationRow & { message_count: number; session_title: string | null; first_text: string | null };

/** Conversations in PostgreSQL; each method is one statement. */
export class MikroOrmConversationRepository implements ConversationRepository {
  constructor(private readonly db: Statements) {}

  async findById(conversationId: string): Promise<Conversation | null> {
    const rows = await this.db.rows<ConversationRow>('select * from conversations where conversation_id = ?', [conversationId]);
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async claim(conversation: Conversation): Promise<Conversation> {
    // Of two racing inserts one waits for the other and then updates nothing but still returns
    // the winner's row; the user is stored only with a conversation that was created.
    const rows = await this.db.rows<ConversationRow>(
      `/* conversations.claim */ with claimed as (
         insert into conversations (conversation_id, user_id, created_at, active_at) values (?, ?, ?, ?)
         on conflict (conversation_id) do update set active_at = conversations.active_at
         returning *, xmax = 0 as created),
       owner as (
         insert into users (user_id, created_at) select user_id, created_at from claimed where created
         on conflict (user_id) do nothing)
       select * from claimed`,
      [conversation.conversationId, conversation.userId, conversation.createdAt, conversation.createdAt],
    );
    return rows[0] ? toConversation(rows[0]) : conversation;
  }

  async touch(conversationId: string, at: Date): Promise<void> {
    await this.db.changed('update conversations set active_at = ? where conversation_id = ? and active_at < ?', [at, conversationId, at]);
  }

  async listByUser(userId: string, limit: number, after: ConversationPosition | null): Promise<ConversationPage> {
    const seek = after ? 'and (c.active_at, c.conversation_id) < (?, ?)' : '';
    // Counts live on the conversation row; the title is two index lookups per listed conversation.
    const rows = await this.db.rows<SummaryRow>(
      `/* conversations.list_by_user */ select c.*,
         (select s.title from sessions s where s.conversation_id = c.conversation_id and s.title is not null
            order by s.updated_at desc limit 1) as session_title,
         (select m.text from messages m where m.conversation_id = c.conversation_id
            order by m.created_at, m.seq limit 1) as first_text
       from conversations c
       where c.user_id = ? ${seek}
       order by c.active_at desc, c.conversation_id desc
       limit ?`,
      [userId, ...(after ? [after.activeAt, after.conversationId] : []), limit + 1],
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
