import { Conversation } from '../../../domain/conversation.js';
import { Message, type Role } from '../../../domain/message.js';
import { Session } from '../../../domain/session.js';
import { User } from '../../../domain/user.js';

/**
 * Rows as PostgreSQL returns them through MikroORM (snake_case; bigint and timestamps as
 * strings: MikroORM turns off pg's date parsing), and their domain objects.
 */
export type Timestamp = Date | string;

export const toDate = (value: Timestamp): Date => (value instanceof Date ? value : new Date(value));
export const toDateOrNull = (value: Timestamp | null): Date | null => (value === null ? null : toDate(value));
export interface MessageRow {
  message_id: string;
  seq: string;
  conversation_id: string;
  user_id: string;
  role: Role;
  text: string;
  created_at: Timestamp;
  metadata: Record<string, unknown>;
  reply_to: string | null;
}

export const toUser = (row: { user_id: string; created_at: Timestamp }) => User.restore({ userId: row.user_id, createdAt: toDate(row.created_at) });

export const toConversation = (row: { conversation_id: string; user_id: string; created_at: Timestamp }) =>
  Conversation.restore({ conversationId: row.conversation_id, userId: row.user_id, createdAt: toDate(row.created_at) });

export const toMessage = (row: MessageRow) =>
  Message.restore({
    messageId: row.message_id,
    conversationId: row.conversation_id,
    userId: row.user_id,
    role: row.role,
    text: row.text,
    createdAt: toDate(row.created_at),
    metadata: row.metadata,
    replyTo: row.reply_to,
  });

export interface SessionRow {
  session_id: string;
  conversation_id: string;
  user_id: string;
  title: string | null;
  started_at: Timestamp | null;
  ended_at: Timestamp | null;
  metadata: Record<string, unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export const toSession = (row: SessionRow) =>
  Session.restore({
    sessionId: row.session_id,
    conversationId: row.conversation_id,
    userId: row.user_id,
    title: row.title,
    startedAt: toDateOrNull(row.started_at),
    endedAt: toDateOrNull(row.ended_at),
    metadata: row.metadata,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  });

/** `?, ?, ?` for a list of bindings. */
export const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');
