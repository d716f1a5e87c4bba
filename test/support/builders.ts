import { Conversation } from '../../src/domain/conversation.js';
import { Message, type MessageProps } from '../../src/domain/message.js';
import { Session, type SessionProps } from '../../src/domain/session.js';
import { User } from '../../src/domain/user.js';
import { uid } from './ids.js';

export const at = (iso: string): Date => new Date(iso);

export const aUser = (userId = uid('user')) => User.create({ userId, createdAt: new Date() });

export const aConversation = (userId = uid('user'), conversationId = uid('conv')) =>
  Conversation.create({ conversationId, userId, createdAt: new Date() });

export const aMessage = (conversation: Conversation, props: Partial<MessageProps> = {}) =>
  Message.create({
    messageId: uid('msg'),
    conversationId: conversation.conversationId,
    userId: conversation.userId,
    role: 'user',
    text: 'hello',
    createdAt: new Date(),
    metadata: {},
    replyTo: null,
    ...props,
  });

export const aSession = (conversation: Conversation, props: Partial<SessionProps> = {}) =>
  Session.create({
    sessionId: uid('session'),
    conversationId: conversation.conversationId,
    userId: conversation.userId,
    title: 'A session',
    startedAt: at('2026-11-22T10:00:00.000Z'),
    endedAt: null,
    metadata: { source: 'test' },
    createdAt: at('2026-11-22T10:00:00.000Z'),
    updatedAt: at('2026-11-22T10:00:00.000Z'),
    ...props,
  });
