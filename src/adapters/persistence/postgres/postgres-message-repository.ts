import type { AppendResult, MessagePage, MessagePosition, MessageRepository, OwnedPage, SortOrder } from '../../../application/ports/message-repository.js';
import type { Conversation } from '../../../domain/conversation.js';
import type { Message } from '../../../domain/message.js';
import { claimAndInsert, messageInput, textArray, toConversation, toDate, toMessage, type ConversationRow, type MessageRow } from './rows.js';
import { empty, sql, type Sql, type Statements } from './statements.js';

/**
 * Messages in PostgreSQL. Every method is one statement (one round trip), atomic by itself;
 * conversation counts are kept by the database's own trigger on `messages`.
 */
export class PostgresMessageRepository implements MessageRepository {
  constructor(private readonly db: Statements) {}

  async findById(messageId: string): Promise<Message | null> {
    const [row] = await this.db.rows<MessageRow>(sql`select * from messages where message_id = ${messageId}`);
    return row ? toMessage(row) : null;
  }

  async findReplyTo(userMessageId: string): Promise<Message | null> {
    const [row] = await this.db.rows<MessageRow>(sql`select * from messages where reply_to = ${userMessageId}`);
    return row ? toMessage(row) : null;
  }

  async append(conversation: Conversation, messages: Message[]): Promise<AppendResult> {
    const [row] = await this.db.rows<{ claimed: ConversationRow | null; existing: ConversationRow | null; taken: MessageRow[]; inserted: string[] }>(
      sql`/* messages.append */ with input as (select * from ${messageInput(messages)}),
       taken as (select m.* from messages m where m.message_id = any(array(select message_id from input))),
       ${claimAndInsert(conversation)}
       select (select row_to_json(c) from claimed c) as claimed,
              (select row_to_json(c) from conversations c where c.conversation_id = ${conversation.conversationId}) as existing,
              coalesce((select json_agg(t) from taken t), '[]') as taken,
              coalesce((select json_agg(message_id) from inserted), '[]') as inserted`,
    );
    const stored = row!.claimed ?? row!.existing;
    return { conversation: stored ? toConversation(stored) : null, taken: row!.taken.map(toMessage), inserted: row!.inserted };
  }

  async pageOwned(conversationId: string, userId: string, order: SortOrder, limit: number, after: MessagePosition | null): Promise<OwnedPage> {
    // The conversation and the page in one statement: no page is read for another user's conversation.
    const rows = await this.db.rows<MessageRow & { owner_id: string; owner_created_at: string }>(
      sql`/* messages.page_owned */ select c.user_id as owner_id, c.created_at as owner_created_at, m.*
       from conversations c
       left join lateral (
         select * from messages where conversation_id = c.conversation_id and c.user_id = ${userId} ${seek(order, after)}
         ${orderBy(order)} limit ${limit + 1}) m on true
       where c.conversation_id = ${conversationId}`,
    );
    const first = rows[0];
    if (!first) return { conversation: null, page: { messages: [], next: null } };
    const conversation = toConversation({ conversation_id: conversationId, user_id: first.owner_id, created_at: first.owner_created_at });
    return { conversation, page: pageOf(rows.filter((r) => r.message_id !== null), limit) };
  }

  async count(conversationId: string): Promise<number> {
    const [row] = await this.db.rows<{ message_count: number }>(sql`select message_count from conversations where conversation_id = ${conversationId}`);
    return row?.message_count ?? 0;
  }

  async deleteOwned(conversationId: string, userId: string, messageIds: string[] | null): Promise<{ conversation: Conversation | null; deleted: number }> {
    const which = messageIds === null ? empty : sql`and m.message_id = any(${textArray(messageIds)})`;
    // The conversation's row first, as replies.begin locks it before it writes messages (see
    // postgres-reply-repository.ts): the message_count trigger would otherwise lock it after the delete.
    const [row] = await this.db.rows<{ conversation: ConversationRow | null; deleted: string }>(
      sql`/* messages.delete_owned */ with locked as materialized (
         select conversation_id from conversations where conversation_id = ${conversationId} and user_id = ${userId} for no key update),
       deleted as (
         delete from messages m where m.conversation_id in (select conversation_id from locked) ${which}
         returning 1)
       select (select row_to_json(c) from conversations c where c.conversation_id = ${conversationId}) as conversation,
              (select count(*) from deleted) as deleted`,
    );
    return { conversation: row!.conversation ? toConversation(row!.conversation) : null, deleted: Number(row!.deleted) };
  }
}

/** Keyset pagination on the (conversation_id, created_at, seq) index, in either direction. */
function seek(order: SortOrder, after: MessagePosition | null): Sql {
  if (!after) return empty;
  return order === 'asc' ? sql`and (created_at, seq) > (${after.createdAt}, ${after.seq})` : sql`and (created_at, seq) < (${after.createdAt}, ${after.seq})`;
}

const orderBy = (order: SortOrder): Sql => (order === 'asc' ? sql`order by created_at asc, seq asc` : sql`order by created_at desc, seq desc`);

function pageOf(rows: MessageRow[], limit: number): MessagePage {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    messages: page.map(toMessage),
    next: rows.length > limit && last ? { createdAt: toDate(last.created_at), seq: Number(last.seq) } : null,
  };
}
