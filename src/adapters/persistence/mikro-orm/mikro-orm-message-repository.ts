import type { Statements } from './statements.js';
import type {
  AppendResult,
  MessagePage,
  MessagePosition,
  MessageRepository,
  OwnedPage,
  SortOrder,
} from '../../../application/ports/message-repository.js';
import type { Conversation } from '../../../domain/conversation.js';
import type { Message } from '../../../domain/message.js';
import {
  jsonList,
  CLAIM_AND_INSERT,
  MESSAGE_COLUMNS,
  MESSAGE_INPUT,
  messagesJson,
  toConversation,
  toDate,
  toMessage,
  type ConversationRow,
  type MessageRow,
} from './rows.js';

/**
 * Messages in PostgreSQL. Every method is one statement (one round trip), atomic by itself;
 * conversation counts are kept by the database's own trigger on `messages`.
 */
export class MikroOrmMessageRepository implements MessageRepository {
  constructor(private readonly db: Statements) {}

  async findById(messageId: string): Promise<Message | null> {
    const rows = await this.db.rows<MessageRow>('select * from messages where message_id = ?', [messageId]);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async findByIds(messageIds: string[]): Promise<Message[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.db.rows<MessageRow>(
      'select * from messages where message_id = any(array(select json_array_elements_text(?::json)))',
      [jsonList(messageIds)],
    );
    return rows.map(toMessage);
  }

  async findReplyTo(userMessageId: string): Promise<Message | null> {
    const rows = await this.db.rows<MessageRow>('select * from messages where reply_to = ?', [userMessageId]);
    return rows[0] ? toMessage(rows[0]) : null;
  }

  async insert(messages: Message[]): Promise<string[]> {
    if (messages.length === 0) return [];
    // seq follows the order of the input (ordinality); any conflict (id, or a second reply) skips the row.
    const rows = await this.db.rows<{ message_id: string }>(
      `/* messages.insert */ insert into messages (${MESSAGE_COLUMNS})
       select ${MESSAGE_COLUMNS} from ${MESSAGE_INPUT} order by ord
       on conflict do nothing returning message_id`,
      [messagesJson(messages)],
    );
    const inserted = new Set(rows.map((row) => row.message_id));
    return messages.map((m) => m.messageId).filter((id) => inserted.has(id));
  }

  async append(conversation: Conversation, messages: Message[]): Promise<AppendResult> {
    const { conversationId, userId, createdAt } = conversation;
    const [row] = await this.db.rows<{ claimed: ConversationRow | null; existing: ConversationRow | null; taken: MessageRow[]; inserted: string[] }>(
      `/* messages.append */ with input as (select * from ${MESSAGE_INPUT}),
       taken as (select m.* from messages m where m.message_id = any(array(select message_id from input))),
       ${CLAIM_AND_INSERT}
       select (select row_to_json(c) from claimed c) as claimed,
              (select row_to_json(c) from conversations c where c.conversation_id = ?) as existing,
              coalesce((select json_agg(t) from taken t), '[]') as taken,
              coalesce((select json_agg(message_id) from inserted), '[]') as inserted`,
      [messagesJson(messages), conversationId, userId, createdAt, createdAt, conversationId],
    );
    const stored = row!.claimed ?? row!.existing;
    return { conversation: stored ? toConversation(stored) : null, taken: row!.taken.map(toMessage), inserted: row!.inserted };
  }

  async page(conversationId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<MessagePage> {
    const rows = await this.db.rows<MessageRow>(
      `select * from messages where conversation_id = ? ${seek(order, after)} ${orderBy(order)} limit ?`,
      [conversationId, ...seekValues(after), limit + 1],
    );
    return pageOf(rows, limit);
  }

  async pageOwned(conversationId: string, userId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<OwnedPage> {
    // The conversation and the page in one statement: no page is read for another user's conversation.
    const rows = await this.db.rows<(MessageRow & { owner_id: string; owner_created_at: string })>(
      `/* messages.page_owned */ select c.user_id as owner_id, c.created_at as owner_created_at, m.*
       from conversations c
       left join lateral (
         select * from messages where conversation_id = c.conversation_id and c.user_id = ? ${seek(order, after)}
         ${orderBy(order)} limit ?) m on true
       where c.conversation_id = ?`,
      [userId, ...seekValues(after), limit + 1, conversationId],
    );
    const first = rows[0];
    if (!first) return { conversation: null, page: { messages: [], next: null } };
    const conversation = toConversation({ conversation_id: conversationId, user_id: first.owner_id, created_at: first.owner_created_at });
    return { conversation, page: pageOf(rows.filter((r) => r.message_id !== null), limit) };
  }

  async count(conversationId: string): Promise<number> {
    const rows = await this.db.rows<{ message_count: number }>('select message_count from conversations where conversation_id = ?', [conversationId]);
    return rows[0]?.message_count ?? 0;
  }

  async deleteByIds(conversationId: string, messageIds: string[]): Promise<number> {
    if (messageIds.length === 0) return 0;
    return this.db.changed(
      'delete from messages where conversation_id = ? and message_id = any(array(select json_array_elements_text(?::json)))',
      [conversationId, jsonList(messageIds)],
    );
  }

  async deleteAll(conversationId: string): Promise<number> {
    return this.db.changed('delete from messages where conversation_id = ?', [conversationId]);
  }

  async deleteOwned(conversationId: string, userId: string, messageIds: string[] | null): Promise<{ conversation: Conversation | null; deleted: number }> {
    const which = messageIds === null ? '' : 'and m.message_id = any(array(select json_array_elements_text(?::json)))';
    // The conversation's row first, as replies.begin locks it before it writes messages (see
    // mikro-orm-reply-repository.ts): the message_count trigger would otherwise lock it after the delete.
    const [row] = await this.db.rows<{ conversation: ConversationRow | null; deleted: string }>(
      `/* messages.delete_owned */ with locked as materialized (
         select conversation_id from conversations where conversation_id = ? and user_id = ? for no key update),
       deleted as (
         delete from messages m where m.conversation_id in (select conversation_id from locked) ${which}
         returning 1)
       select (select row_to_json(c) from conversations c where c.conversation_id = ?) as conversation,
              (select count(*) from deleted) as deleted`,
      [conversationId, userId, ...(messageIds === null ? [] : [jsonList(messageIds)]), conversationId],
    );
    return { conversation: row!.conversation ? toConversation(row!.conversation) : null, deleted: Number(row!.deleted) };
  }
}

/** Keyset pagination on the (conversation_id, created_at, seq) index, in either direction. */
const seek = (order: SortOrder, after: MessagePosition | null) => (after ? `and (created_at, seq) ${order === 'asc' ? '>' : '<'} (?, ?)` : '');
const seekValues = (after: MessagePosition | null) => (after ? [after.createdAt, after.seq] : []);
const orderBy = (order: SortOrder) => (order === 'asc' ? 'order by created_at asc, seq asc' : 'order by created_at desc, seq desc');

function pageOf(rows: MessageRow[], limit: number): MessagePage {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    messages: page.map(toMessage),
    next: rows.length > limit && last ? { createdAt: toDate(last.created_at), seq: Number(last.seq) } : null,
  };
}
