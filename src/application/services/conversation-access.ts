import { Conversation } from '../../domain/conversation.js';
import { User } from '../../domain/user.js';
import type { Repositories } from '../ports/unit-of-work.js';

/**
 * The conversation a write goes to: created (with its user) if new, and owned by `userId`,
 * else ConversationNotFoundError.
 */
export async function claimConversation(
  repositories: Repositories,
  conversationId: string,
  userId: string,
  now: Date,
): Promise<Conversation> {
  const existing = await repositories.conversations.findById(conversationId);
  if (existing) return existing.assertOwnedBy(userId);
  await repositories.users.ensure(User.create({ userId, createdAt: now }));
  const candidate = Conversation.create({ conversationId, userId, createdAt: now });
  const stored = await repositories.conversations.claim(candidate);
  return stored.assertOwnedBy(userId);
}

/** For reads: null when the conversation is unknown, ConversationNotFoundError when it is another user's. */
export async function findOwnedConversation(
  repositories: Repositories,
  conversationId: string,
  userId: string,
): Promise<Conversation | null> {
  const existing = await repositories.conversations.findById(conversationId);
  return existing ? existing.assertOwnedBy(userId) : null;
}
