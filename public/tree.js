// Keeps the tree shown up to date: after a reply, an edit or a delete the service may have moved
// messages (a deleted message's children follow its parent) or given them siblings, so the
// messages shown are listed again and each takes its parent and "‹ 2/3 ›" from the listing.
import { loadMessages } from './api.js';
import { ui } from './dom.js';
import { showTree } from './render-tree.js';
import { state } from './state.js';

/** The most a listing gives (loadMessages' `limit`). */
const MAX_LIMIT = 500;

export async function refreshTree() {
  const { userId, conversationId, view } = state;
  const shown = ui.messageList.querySelectorAll('li.message[data-message-id]').length;
  if (!userId || !conversationId || shown === 0) return;
  try {
    const page = await loadMessages({ user_id: userId, conversation_id: conversationId, order: 'desc', limit: Math.min(shown, MAX_LIMIT) });
    if (view !== state.view) return;
    for (const message of page.messages) {
      const item = ui.messageList.querySelector(`li.message[data-message-id="${CSS.escape(message.message_id)}"]`);
      if (item instanceof HTMLElement) showTree(item, message);
    }
  } catch {
    // The controls stay as they were; the next change lists the branch again.
  }
}
