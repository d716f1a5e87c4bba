import type { ConversationSummary } from '../../application/ports/conversation-repository.js';
import type { Message } from '../../domain/message.js';
import type { Persona } from '../../domain/persona.js';
import type { Session } from '../../domain/session.js';

/** Domain objects as the JSON the contract shows: snake_case, ISO 8601 UTC timestamps. */

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function messageJson(message: Message) {
  return {
    message_id: message.messageId,
    conversation_id: message.conversationId,
    user_id: message.userId,
    role: message.role,
    text: message.text,
    created_at: iso(message.createdAt),
    metadata: message.metadata,
  };
}

export function sessionJson(session: Session, messageCount: number) {
  return {
    session_id: session.sessionId,
    conversation_id: session.conversationId,
    user_id: session.userId,
    title: session.title,
    started_at: iso(session.startedAt),
    ended_at: iso(session.endedAt),
    metadata: session.metadata,
    message_count: messageCount,
    created_at: iso(session.createdAt),
    updated_at: iso(session.updatedAt),
  };
}

export function conversationJson(summary: ConversationSummary) {
  return {
    conversation_id: summary.conversation.conversationId,
    title: summary.title,
    created_at: iso(summary.conversation.createdAt),
    last_message_at: iso(summary.lastMessageAt),
    message_count: summary.messageCount,
  };
}

export function personaJson(persona: Persona) {
  return {
    status: 'ok' as const,
    name: persona.name,
    description: persona.description,
    traits: persona.traits,
    descriptors: persona.descriptors,
    speaking_style: persona.speakingStyle,
  };
}
