import type { Conversation } from '../../domain/conversation.js';
import { MessageIdConflictError } from '../../domain/errors.js';
import { Message, type Role } from '../../domain/message.js';
import type { Metadata } from '../../domain/metadata.js';
import type { Repositories } from '../ports/unit-of-work.js';

/** A message as a client sends it: optional fields stay undefined when not sent. */
export interface IncomingMessage {
  messageId?: string;
  role: Role;
  text: string;
  createdAt?: Date;
  metadata?: Metadata;
}

export interface StoredMessages {
  /** One per incoming message, in order: the newly stored or the already stored one. */
  messages: Message[];
  /** Ids of the messages this call stored. */
  insertedIds: Set<string>;
}

/**
 * Stores messages idempotently by id: a resent message with the same content is returned
 * as stored, one with other content is a MessageIdConflictError. Call inside a unit of work.
 */
export async function storeMessages(
  repositories: Repositories,
  conversation: Conversation,
  incoming: IncomingMessage[],
  make: { now: Date; newId: () => string },
): Promise<StoredMessages> {
  const candidates = incoming.map((sent) =>
    Message.create({
      messageId: sent.messageId ?? make.newId(),
      conversationId: conversation.conversationId,
      userId: conversation.userId,
      role: sent.role,
      text: sent.text,
      createdAt: sent.createdAt ?? make.now,
      metadata: sent.metadata ?? {},
      replyTo: null,
    }),
  );
  const known = new Map<string, Message>();
  const clientIds = incoming.flatMap((sent) => (sent.messageId === undefined ? [] : [sent.messageId]));
  for (const message of await repositories.messages.findByIds([...new Set(clientIds)])) {
    known.set(message.messageId, message);
  }

  const check = (candidate: Message, index: number): Message | null => {
    const stored = known.get(candidate.messageId);
    if (!stored) return null;
    const sent = incoming[index]!;
    const difference = stored.differenceFrom(candidate, { metadata: sent.metadata !== undefined, createdAt: sent.createdAt !== undefined });
    if (difference) throw new MessageIdConflictError(candidate.messageId, difference);
    return stored;
  };

  const fresh: Message[] = [];
  candidates.forEach((candidate, index) => {
    if (!check(candidate, index)) {
      known.set(candidate.messageId, candidate);
      fresh.push(candidate);
    }
  });

  const insertedIds = new Set(await repositories.messages.insert(fresh));
  const raced = fresh.filter((message) => !insertedIds.has(message.messageId));
  if (raced.length > 0) {
    // Another request stored some of these ids since we looked: compare with what it stored.
    for (const message of raced) known.delete(message.messageId);
    for (const message of await repositories.messages.findByIds(raced.map((m) => m.messageId))) {
      known.set(message.messageId, message);
    }
    candidates.forEach((candidate, index) => {
      if (raced.includes(candidate)) check(candidate, index);
    });
  }
  if (fresh.length > 0) await repositories.conversations.touch(conversation.conversationId, make.now);
  return { messages: candidates.map((c) => known.get(c.messageId) ?? c), insertedIds };
}
