import { EntitySchema } from '@mikro-orm/core';
import { ROLES } from '../../../domain/message.js';

/**
 * The tables, as MikroORM entity schemas over plain records (the domain classes stay free of
 * ORM types; the repositories map records to and from them). The migration generator diffs
 * these against the database.
 */
export interface UserRecord {
  userId: string;
  createdAt: Date;
}

export interface ConversationRecord {
  conversationId: string;
  user: UserRecord;
  createdAt: Date;
  activeAt: Date;
}

export interface MessageRecord {
  messageId: string;
  seq: string;
  conversation: ConversationRecord;
  userId: string;
  role: string;
  text: string;
  createdAt: Date;
  metadata: Record<string, unknown>;
  replyTo: string | null;
}

export interface SessionRecord {
  sessionId: string;
  conversation: ConversationRecord;
  userId: string;
  title: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

const id = { type: 'string', length: 128 } as const;
const timestamp = { type: 'datetime', columnType: 'timestamptz(3)' } as const;

export const UserSchema = new EntitySchema<UserRecord>({
  name: 'UserRecord',
  tableName: 'users',
  properties: {
    userId: { ...id, primary: true },
    createdAt: { ...timestamp },
  },
});

export const ConversationSchema = new EntitySchema<ConversationRecord>({
  name: 'ConversationRecord',
  tableName: 'conversations',
  indexes: [{ name: 'conversations_by_user_activity', properties: ['user', 'activeAt', 'conversationId'] }],
  properties: {
    conversationId: { ...id, primary: true },
    user: { kind: 'm:1', entity: 'UserRecord', fieldName: 'user_id', deleteRule: 'cascade' },
    createdAt: { ...timestamp },
    activeAt: { ...timestamp },
  },
});

export const MessageSchema = new EntitySchema<MessageRecord>({
  name: 'MessageRecord',
  tableName: 'messages',
  indexes: [{ name: 'messages_timeline', properties: ['conversation', 'createdAt', 'seq'] }],
  uniques: [{ name: 'messages_seq_unique', properties: ['seq'] }],
  properties: {
    messageId: { ...id, primary: true },
    seq: { type: 'bigint', columnType: 'bigserial', autoincrement: true },
    conversation: { kind: 'm:1', entity: 'ConversationRecord', fieldName: 'conversation_id', deleteRule: 'cascade' },
    userId: { ...id },
    role: { enum: true, items: () => [...ROLES] },
    text: { type: 'text' },
    createdAt: { ...timestamp },
    metadata: { type: 'json' },
    replyTo: { ...id, nullable: true, unique: 'messages_reply_to_unique' },
  },
});

export const SessionSchema = new EntitySchema<SessionRecord>({
  name: 'SessionRecord',
  tableName: 'sessions',
  indexes: [{ name: 'sessions_by_conversation', properties: ['conversation', 'updatedAt'] }],
  properties: {
    sessionId: { ...id, primary: true },
    conversation: { kind: 'm:1', entity: 'ConversationRecord', fieldName: 'conversation_id', deleteRule: 'cascade' },
    userId: { ...id },
    title: { type: 'text', nullable: true },
    startedAt: { ...timestamp, nullable: true },
    endedAt: { ...timestamp, nullable: true },
    metadata: { type: 'json' },
    createdAt: { ...timestamp },
    updatedAt: { ...timestamp },
  },
});

export const ENTITY_SCHEMAS = [UserSchema, ConversationSchema, MessageSchema, SessionSchema];
