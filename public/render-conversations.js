// The conversation list and the conversation's heading as DOM, text only. A click on an entry is
// answered by one listener on the list (app.js).
import { element, formatTime, ui } from './dom.js';
import { state } from './state.js';

/** @typedef {import('./api-types.js').ConversationSummary} ConversationSummary */

/** @param {number} count */
const messageCount = (count) => (count === 1 ? '1 message' : `${count} messages`);

/** One entry of the list. @param {ConversationSummary} conversation */
export function renderConversation(conversation) {
  const item = element('li');
  const button = element('button', { type: 'button', class: 'conversation', 'data-conversation-id': conversation.conversation_id });
  const title = element('span', { class: 'conversation__title' }, conversation.title?.trim() || 'Untitled conversation');
  const count = messageCount(conversation.message_count);
  const when = formatTime(conversation.last_message_at ?? conversation.created_at);
  const meta = element('span', { class: 'conversation__meta' }, when ? `${count} · ${when}` : count);
  button.append(title, meta);
  item.append(button);
  return item;
}

/** Marks the conversation shown in the list, and names it above the messages. */
export function markCurrentConversation() {
  for (const button of ui.conversationList.querySelectorAll('button.conversation')) {
    if (!(button instanceof HTMLElement)) continue;
    if (button.dataset.conversationId === state.conversationId) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  const summary = state.conversationId ? state.conversations.get(state.conversationId) : undefined;
  ui.chatTitle.textContent = state.conversationId ? summary?.title?.trim() || 'Conversation' : 'New conversation';
  ui.chatMeta.textContent = summary
    ? `${messageCount(summary.message_count)}, started ${formatTime(summary.created_at)}`
    : state.conversationId
      ? ''
      : 'Write a message below to start a conversation.';
}
