import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  ConversationPage,
  ConversationPosition,
  ConversationRepository,
} from '../../../application/ports/conversation-repository.js';
import { conversationTitle, type Conversation } from '../../../domain/conversation.js';
import { toConversation, toDate, type Timestamp } from './rows.js';

type ConversationRow = { conversation_id: string; user_id: string; created_at: Timestamp; active_at: Timestamp };
type SummaryRow = ConversationRow & { message_count: string; session_title: string | null; first_text: string | null };

export class MikroOrmConversationRepository implements ConversationRepository {
  constructor(private readonly em: EntityManager) {}

  async findById(conversationId: string): Promise<Conversation | null> {
    const rows = await this.em.execute<ConversationRow[]>('select * from conversations where conversation_id = ?', [conversationId]);
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async claim(conversation: Conversation): Promise<Conversation> {
    // Of two racing inserts one waits for the other and then does nothing; both read the winner.
    await this.em.execute('insert into users (user_id, created_at) values (?, ?) on conflict (user_id) do nothing', [
      conversation.userId,
      conversation.createdAt,
    ]);
    await this.em.execute(
      `insert into conversations (conversation_id, user_id, created_at, active_at) values (?, ?, ?, ?)
       on conflict (conversation_id) do nothing`,
      [conversation.conversationId, conversation.userId, conversation.createdAt, conversation.createdAt],
    );
    return (await this.findById(conversation.conversationId)) ?? conversation;
  }

  async touch(conversationId: string, at: Date): Promise<void> {
    await this.em.execute('update conversations set active_at = ? where conversation_id = ? and active_at < ?', [at, conversationId, at]);
  }

  async listByUser(userId: string, limit: number, after: ConversationPosition | null): Promise<ConversationPage> {
    const seek = after ? 'and (c.active_at, c.conversation_id) < (?, ?)' : '';
    const rows = await this.em.execute<SummaryRow[]>(
      `select c.*,
         (select count(*) from messages m where m.conversation_id = c.conversation_id) as message_count,
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
      items: page.map((row) => {
        const messageCount = Number(row.message_count);
        return {
          conversation: toConversation(row),
          title: conversationTitle(row.session_title, row.first_text),
          lastMessageAt: messageCount > 0 ? toDate(row.active_at) : null,
          messageCount,
        };
      }),
      next: rows.length > limit && last ? { activeAt: toDate(last.active_at), conversationId: last.conversation_id } : null,
    };
  }
}
