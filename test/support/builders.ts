import { Conversation } from '../../src/domain/conversation.js';
import { Message, type MessageProps } from '../../src/domain/message.js';
import type { Persona } from '../../src/domain/persona.js';
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

export const aPersona = (props: Partial<Persona> = {}): Persona => ({
  name: 'Ada',
  description: 'a warm, curious assistant',
  traits: { openness: 0.8, conscientiousness: 0.7, extraversion: 0.6, agreeableness: 0.9, neuroticism: 0.2 },
  descriptors: ['curious', 'kind'],
  speakingStyle: 'warm and concise',
  voice: null,
  ...props,
});
