// The user's conversations in the sidebar: the first page, again after every change, and older
// pages on request.
import { describeError, listConversations } from './api.js';
import { ui } from './dom.js';
import { markCurrentConversation, renderConversation } from './render-conversations.js';
import { CONVERSATION_PAGE_SIZE, state } from './state.js';

/** @param {{append?: boolean}} [options] append: the next page below the ones shown */
export async function loadConversations({ append = false } = {}) {
  const userId = state.userId;
  if (!userId) return;
  const cursor = append ? state.conversationCursor : null;
  if (!append && ui.conversationList.childElementCount === 0) ui.conversationsStatus.textContent = 'Loading conversations…';
  try {
    const page = await listConversations({ user_id: userId, limit: CONVERSATION_PAGE_SIZE, cursor });
    if (userId !== state.userId) return; // another user was chosen meanwhile
    if (!append) {
      state.conversations.clear();
      ui.conversationList.replaceChildren();
    }
    for (const conversation of page.conversations) {
      state.conversations.set(conversation.conversation_id, conversation);
      ui.conversationList.append(renderConversation(conversation));
    }
    state.conversationCursor = page.next_cursor;
    ui.moreConversations.hidden = page.next_cursor === null;
    ui.conversationsStatus.textContent = state.conversations.size === 0 ? 'No conversations yet: write a message to start one.' : '';
    markCurrentConversation();
  } catch (error) {
    if (userId !== state.userId) return;
    ui.conversationsStatus.textContent = `Could not load conversations: ${describeError(error)}`;
  }
}
