import { expect } from 'chai';
import type { UnitOfWork } from '../../src/application/ports/unit-of-work.js';
import { Conversation } from '../../src/domain/conversation.js';
import { Message } from '../../src/domain/message.js';
import { uid } from './ids.js';

/** A turn begun in `store`: a new conversation, the user's message and its reply in progress, stored (replies.begin). */
export async function begunTurn(store: UnitOfWork, createdAt = new Date()) {
  const conversation = Conversation.create({ conversationId: uid('conv'), userId: uid('user'), createdAt });
  const base = { conversationId: conversation.conversationId, userId: conversation.userId, createdAt, metadata: {} };
  const userMessage = Message.create({ ...base, messageId: uid('msg'), role: 'user', text: 'hello', replyTo: null });
  const reply = Message.create({ ...base, messageId: uid('reply'), role: 'assistant', text: '', metadata: { model: 'm' }, replyTo: userMessage.messageId, status: 'in_progress', progressAt: createdAt });
  const record = await store.run((r) => r.replies.begin({ conversation, userMessage, reply, historyLimit: 10 }), { atomic: false });
  expect(record.opened).to.equal(true);
  return { conversation, userMessage, reply };
}
