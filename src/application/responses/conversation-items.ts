import type { Conversation } from '../../domain/conversation.js';
import { Message } from '../../domain/message.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { StringMetadata } from '../ports/response-repository.js';
import type { ContextMessage } from '../replies/start-turn.js';

/** A conversation as OpenAI's Conversations API shows it: the native conversation and its metadata. */
export interface ConversationView {
  conversation: Conversation;
  metadata: StringMetadata;
}

/** Items sent by a client as messages of `conversation`, each after the one before it (the first after the head). */
export function messagesOf(items: ContextMessage[], conversation: Conversation, ids: IdGenerator, clock: Clock): Message[] {
  const now = clock.now();
  return items.map((item) =>
    Message.create({
      messageId: ids.newId(),
      conversationId: conversation.conversationId,
      userId: conversation.userId,
      role: item.role,
      text: item.text,
      createdAt: now,
      metadata: item.metadata ?? {},
      replyTo: null,
    }),
  );
}
