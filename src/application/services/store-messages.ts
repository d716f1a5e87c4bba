import type { Conversation } from '../../domain/conversation.js';
import { FieldInvalidError, MessageIdConflictError } from '../../domain/errors.js';
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
  /** The message it follows; null: none (it starts a tree of its own, as an edit of a first message does); absent: the one before it in the request, the first one the head. */
  parentId?: string | null;
}

export interface StoredMessages {
  /** The conversation the messages went to, owned by the caller. */
  conversation: Conversation;
  /** One per incoming message, in order: the newly stored or the already stored one. */
  messages: Message[];
  /** Ids of the messages this call stored. */
  insertedIds: Set<string>;
}

/** Rounds of asking the store again when ids were stored concurrently; each round settles at least one id. */
const MAX_ROUNDS = 5;

/**
 * Stores messages in a conversation (claimed for the user if new), idempotently by id: a
 * resent message with the same content is returned as stored, one with other content is a
 * MessageIdConflictError, another user's conversation a ConversationNotFoundError. Usually
 * one call to the store; a resend asks again for the messages that are new.
 */
export async function storeMessages(
  repositories: Repositories,
  candidate: Conversation,
  incoming: IncomingMessage[],
  make: { now: Date; newId: () => string },
): Promise<StoredMessages> {
  const candidates: Message[] = [];
  for (const sent of incoming) {
    candidates.push(
      Message.create({
        messageId: sent.messageId ?? make.newId(),
        conversationId: candidate.conversationId,
        userId: candidate.userId,
        role: sent.role,
        text: sent.text,
        createdAt: sent.createdAt ?? make.now,
        metadata: sent.metadata ?? {},
        replyTo: null,
        // Each follows the one before it in the request; the first, unless told, the head.
        parentId: sent.parentId === undefined ? (candidates.at(-1)?.messageId ?? null) : sent.parentId,
      }),
    );
  }
  assertRepeatsSame(candidates, incoming);
  const roots = new Set(candidates.filter((_, i) => incoming[i]!.parentId === null).map((c) => c.messageId));
  // Dated here (no time sent for that id): the store keeps them from being older than what they follow.
  const timed = new Set(candidates.filter((_, i) => incoming[i]!.createdAt !== undefined).map((c) => c.messageId));
  const stamped = new Set(candidates.map((c) => c.messageId).filter((id) => !timed.has(id)));
  const stored = new Map<string, Message>();
  const insertedIds = new Set<string>();
  let pending = candidates;
  for (let round = 1; ; round++) {
    const result = await repositories.messages.append(candidate, pending, { roots, stamped });
    result.conversation?.assertOwnedBy(candidate.userId);
    if (result.unknownParents.length > 0) throw new FieldInvalidError('parent_id', 'must be a message of this conversation');
    for (const taken of result.taken) {
      const index = candidates.findIndex((c) => c.messageId === taken.messageId);
      const sent = incoming[index]!;
      const difference = taken.differenceFrom(candidates[index]!, {
        metadata: sent.metadata !== undefined,
        createdAt: sent.createdAt !== undefined,
        parentId: sent.parentId !== undefined,
      });
      if (difference) throw new MessageIdConflictError(taken.messageId, difference);
      stored.set(taken.messageId, taken);
    }
    for (const { messageId, parentId, createdAt } of result.inserted) {
      insertedIds.add(messageId);
      const index = candidates.findIndex((c) => c.messageId === messageId);
      stored.set(messageId, candidates[index]!.with({ parentId, createdAt }));
    }
    pending = pending.filter((m) => !stored.has(m.messageId));
    if (result.conversation && (pending.length === 0 || round === MAX_ROUNDS)) {
      if (pending.length > 0) throw new Error(`messages could not be stored after ${MAX_ROUNDS} rounds`);
      return { conversation: result.conversation, messages: candidates.map((c) => stored.get(c.messageId) ?? c), insertedIds };
    }
  }
}

/** One id twice in a request: the later must be the earlier again, as a resend of a stored one must (else 409). */
function assertRepeatsSame(candidates: Message[], incoming: IncomingMessage[]): void {
  if (candidates.length < 2) return;
  const first = new Map<string, Message>();
  candidates.forEach((candidate, index) => {
    const earlier = first.get(candidate.messageId);
    if (!earlier) return void first.set(candidate.messageId, candidate);
    const sent = incoming[index]!;
    const difference = earlier.differenceFrom(candidate, { metadata: sent.metadata !== undefined, createdAt: sent.createdAt !== undefined, parentId: false });
    if (difference) throw new MessageIdConflictError(candidate.messageId, difference);
  });
}
