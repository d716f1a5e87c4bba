// The user's conversations in the sidebar (or the archived ones): the first page, again after
// every change (as many as were shown), and older pages on request; a title the service gives one as its first reply
// ends (the stream's `title` event) shown in place, without listing them again.
import { describeError, getConversation, listConversations } from './api.js';
import { ui } from './dom.js';
import { markCurrentConversation, renderConversation, retitleEntry } from './render-conversations.js';
import { CONVERSATION_PAGE_SIZE, state } from './state.js';

/** @typedef {import('./api-types.js').ConversationSummary} ConversationSummary */
/** @typedef {import('./api-types.js').StreamTitle} StreamTitle */

/** The most conversations the service lists in one page. */
const MAX_LIST_LIMIT = 500;

/** @param {{append?: boolean}} [options] append: the next page below the ones shown */
export async function loadConversations({ append = false } = {}) {
  const userId = state.userId;
  const archived = state.showArchived;
  if (!userId) return;
  const cursor = append ? state.conversationCursor : null;
  // Listed again after a change: as many as were shown (older pages the user loaded stay), in one request.
  const limit = append ? CONVERSATION_PAGE_SIZE : Math.min(MAX_LIST_LIMIT, Math.max(CONVERSATION_PAGE_SIZE, state.conversations.size));
  if (!append && ui.conversationList.childElementCount === 0) ui.conversationsStatus.textContent = 'Loading conversations…';
  try {
    const page = await listConversations({ user_id: userId, limit, cursor, archived });
    if (userId !== state.userId || archived !== state.showArchived) return; // another user or list was chosen meanwhile
    if (!append) {
      state.conversations.clear();
      ui.conversationList.replaceChildren();
    }
    for (const listed of page.conversations) {
      const conversation = withStreamedTitle(listed);
      state.conversations.set(conversation.conversation_id, conversation);
      ui.conversationList.append(renderConversation(conversation));
    }
    state.conversationCursor = page.next_cursor;
    ui.moreConversations.hidden = page.next_cursor === null;
    ui.conversationsStatus.textContent =
      state.conversations.size > 0 ? '' : archived ? 'No archived conversations.' : 'No conversations yet: write a message to start one.';
    markCurrentConversation();
    void readShownConversation();
  } catch (error) {
    if (userId !== state.userId) return;
    ui.conversationsStatus.textContent = `Could not load conversations: ${describeError(error)}`;
  }
}

/**
 * The conversation shown, read for its heading (title, messages, start) when no listing holds it:
 * archived, beyond the pages loaded, or opened from a search result. Once per conversation shown.
 */
export async function readShownConversation() {
  const { conversationId, userId } = state;
  if (!conversationId || !userId || state.temporary || state.conversations.has(conversationId) || state.shown?.conversation_id === conversationId) return;
  if (shownAsked === conversationId) return;
  shownAsked = conversationId;
  try {
    const { conversation } = await getConversation(conversationId, userId);
    if (state.conversationId !== conversationId || state.userId !== userId) return;
    // A title its stream gave stays for the listing to come (withStreamedTitle would forget it here).
    const streamed = state.streamedTitles.get(conversationId);
    state.shown = conversation.title === null && streamed ? { ...conversation, ...streamed } : conversation;
    markCurrentConversation();
  } catch {
    shownAsked = null; // not there yet (a new conversation's first turn), or the service away: asked again later
  }
}
/** @type {string | null} */
let shownAsked = null;

/** Lists the archived conversations instead of the others, or back. @param {boolean} archived */
export function showArchived(archived) {
  state.showArchived = archived;
  state.conversationCursor = null;
  state.conversations.clear();
  ui.conversationList.replaceChildren();
  ui.showArchived.setAttribute('aria-pressed', String(archived));
  ui.showArchived.textContent = archived ? 'Show conversations' : 'Show archived';
  ui.conversationsHeading.textContent = archived ? 'Archived conversations' : 'Conversations';
  return loadConversations();
}

/**
 * A listed conversation, with the title its stream gave when the listing has none yet; once a
 * listing has a title of its own, the streamed one is forgotten.
 * @param {ConversationSummary} conversation
 */
function withStreamedTitle(conversation) {
  const streamed = state.streamedTitles.get(conversation.conversation_id);
  if (!streamed) return conversation;
  if (conversation.title !== null) {
    state.streamedTitles.delete(conversation.conversation_id);
    return conversation;
  }
  return { ...conversation, ...streamed };
}

/**
 * A conversation's new title, from its stream: its entry and heading show it, now or when a
 * listing first shows the conversation. @param {StreamTitle} data
 */
export function showTitle({ conversation_id, title, title_source }) {
  state.streamedTitles.set(conversation_id, { title, title_source });
  if (state.shown?.conversation_id === conversation_id) {
    state.shown = { ...state.shown, title, title_source };
    markCurrentConversation();
  }
  const known = state.conversations.get(conversation_id);
  if (!known) return void readShownConversation();
  const named = { ...known, title, title_source };
  state.conversations.set(conversation_id, named);
  retitleEntry(named);
}
