import type { EntityManager } from '@mikro-orm/postgresql';
import type { MessagePage, MessagePosition, MessageRepository, SortOrder } from '../../../application/ports/message-repository.js';
import type { Message } from '../../../domain/message.js';
import { placeholders, toDate, toMessage, type MessageRow } from './rows.js';

const COLUMNS = ['message_id', 'conversation_id', 'user_id', 'role', 'text', 'created_at', 'metadata', 'reply_to'];
const ROW = `(?, ?, ?, ?, ?, ?, ?::jsonb, ?)`;
/** Rows per INSERT: 8 bindings each, far below PostgreSQL's 65,535. */
const BATCH = 500;

export class MikroOrmMessageRepository implements MessageRepository {
  constructor(private readonly em: EntityManager) {}

  async findById(messageId: string): Promise<Message | null> {
    const rows = await this.em.execute<MessageRow[]>('select * from messages where message_id = ?', [messageId]);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async findByIds(messageIds: string[]): Promise<Message[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.em.execute<MessageRow[]>(
      `select * from messages where message_id in (${placeholders(messageIds.length)})`,
      messageIds,
    );
    return rows.map(toMessage);
  }

  async findReplyTo(userMessageId: string): Promise<Message | null> {
    const rows = await this.em.execute<MessageRow[]>('select * from messages where reply_to = ?', [userMessageId]);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async insert(messages: Message[]): Promise<string[]> {
    const inserted: string[] = [];
    for (let start = 0; start < messages.length; start += BATCH) {
      const batch = messages.slice(start, start + BATCH);
      // One statement per batch: seq follows the order of the VALUES list.
      const rows = await this.em.execute<{ message_id: string }[]>(
        `insert into messages (${COLUMNS.join(', ')}) values ${batch.map(() => ROW).join(', ')}
         on conflict do nothing returning message_id`,
        batch.flatMap((m) => [m.messageId, m.conversationId, m.userId, m.role, m.text, m.createdAt, JSON.stringify(m.metadata), m.replyTo]),
      );
      inserted.push(...rows.map((row) => row.message_id));
    }
    return inserted;
  }

  async page(conversationId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<MessagePage> {
    const direction = order === 'asc' ? 'asc' : 'desc';
    const seek = after ? `and (created_at, seq) ${order === 'asc' ? '>' : '<'} (?, ?)` : '';
    // Served by the (conversation_id, created_at, seq) index in either direction; reads one page.
    const rows = await this.em.execute<MessageRow[]>(
      `select * from messages where conversation_id = ? ${seek}
       order by created_at ${direction}, seq ${direction} limit ?`,
      [conversationId, ...(after ? [after.createdAt, after.seq] : []), limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      messages: page.map(toMessage),
      next: rows.length > limit && last ? { createdAt: toDate(last.created_at), seq: Number(last.seq) } : null,
    };
  }

  async count(conversationId: string): Promise<number> {
    const rows = await this.em.execute<{ count: string }[]>('select count(*) from messages where conversation_id = ?', [conversationId]);
    return Number(rows[0]?.count ?? 0);
  }

  async deleteByIds(conversationId: string, messageIds: string[]): Promise<number> {
    if (messageIds.length === 0) return 0;
    const result = await this.em.execute<{ affectedRows: number }>(
      `delete from messages where conversation_id = ? and message_id in (${placeholders(messageIds.length)})`,
      [conversationId, ...messageIds],
      'run',
    );
    return result.affectedRows;
  }

  async deleteAll(conversationId: string): Promise<number> {
    const result = await this.em.execute<{ affectedRows: number }>('delete from messages where conversation_id = ?', [conversationId], 'run');
    return result.affectedRows;
  }
}
