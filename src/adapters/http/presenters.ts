import type { z } from 'zod';
import type { ImportReport } from '../../application/transfer/import-conversations.js';
import type { Deleted } from '../../application/ports/conversation-repository.js';
import type { ConversationView } from '../../application/conversations/conversation-view.js';
import type { Siblings } from '../../application/ports/message-repository.js';
import type { Message } from '../../domain/message.js';
import type { Session } from '../../domain/session.js';
import type * as out from './response-schemas.js';

/**
 * Domain objects and use-case results as the JSON the contract shows: snake_case, ISO 8601 UTC
 * timestamps. Each presenter returns the type of its response schema (the one /openapi.json is
 * generated from), so a presenter that drifts from its document fails `npm run typecheck`.
 * Parameters are typed by the fields they read, not by the use cases' result types.
 */
export type Body<Schema extends z.ZodType> = z.input<Schema>;

const iso = (date: Date): string => date.toISOString();
const isoOrNull = (date: Date | null): string | null => (date ? iso(date) : null);

export function messageJson(message: Message): Body<typeof out.messageResponse> {
  return {
    message_id: message.messageId,
    conversation_id: message.conversationId,
    user_id: message.userId,
    role: message.role,
    text: message.text,
    created_at: iso(message.createdAt),
    // A finished reply's reason is shown where clients have always read it: in its metadata.
    metadata: message.finishReason === null ? message.metadata : { ...message.metadata, finish_reason: message.finishReason },
    status: message.status,
    parent_id: message.parentId,
  };
}

/** A message of a branch listing, with its siblings. */
export function branchMessageJson(message: Message, siblings: Siblings): Body<typeof out.branchMessageResponse> {
  return {
    ...messageJson(message),
    siblings: { count: siblings.count, index: siblings.index, previous_id: siblings.previousId, next_id: siblings.nextId },
  };
}

export function sessionJson(session: Session, messageCount: number): Body<typeof out.sessionResponse> {
  return {
    session_id: session.sessionId,
    conversation_id: session.conversationId,
    user_id: session.userId,
    title: session.title,
    started_at: isoOrNull(session.startedAt),
    ended_at: isoOrNull(session.endedAt),
    metadata: session.metadata,
    message_count: messageCount,
    created_at: iso(session.createdAt),
    updated_at: iso(session.updatedAt),
  };
}

export function conversationJson(summary: ConversationView): Body<typeof out.conversationResponse> {
  return {
    conversation_id: summary.conversation.conversationId,
    user_id: summary.conversation.userId,
    title: summary.title,
    title_source: summary.titleSource,
    created_at: iso(summary.conversation.createdAt),
    last_message_at: isoOrNull(summary.lastMessageAt),
    message_count: summary.messageCount,
    head_id: summary.headId,
    pinned: summary.pinned,
    archived: summary.archived,
    temporary: summary.conversation.temporary,
    expires_at: isoOrNull(summary.expiresAt),
  };
}

/** GET and PATCH /api/chat/conversations/{conversation_id} */
export function conversationItemJson(summary: ConversationView): Body<typeof out.conversationItemResponse> {
  return { status: 'ok', conversation: conversationJson(summary) };
}

/** DELETE /api/chat/conversations/{conversation_id} */
export function deletedConversationJson(deleted: Deleted): Body<typeof out.deletedConversationsResponse> {
  return { status: 'ok', deleted: { conversations: deleted.conversations, messages: deleted.messages, sessions: deleted.sessions } };
}

/** DELETE /api/users/{user_id} */
export function erasedUserJson(erased: Deleted & { users: number }): Body<typeof out.erasedUserResponse> {
  return { status: 'ok', deleted: { users: erased.users, conversations: erased.conversations, messages: erased.messages, sessions: erased.sessions } };
}

export interface ChatExchangeFields {
  response: string;
  conversationId: string;
  messageId: string;
  userMessageId: string;
  createdAt: Date;
  finishReason: string;
}

/** POST /v1/chat */
export function chatJson(exchange: ChatExchangeFields): Body<typeof out.chatResponse> {
  return {
    response: exchange.response,
    status: 'ok',
    conversation_id: exchange.conversationId,
    message_id: exchange.messageId,
    user_message_id: exchange.userMessageId,
    created_at: iso(exchange.createdAt),
    finish_reason: exchange.finishReason,
  };
}

/** POST /v1/chat/stream/{message_id}/stop */
export function stoppedReplyJson(message: Message | null): Body<typeof out.stoppedReplyResponse> {
  return { status: 'ok', message: message ? messageJson(message) : null };
}

/** POST /api/chat/saveMessage */
export function savedMessageJson(message: Message): Body<typeof out.savedMessageResponse> {
  return { status: 'ok', message: messageJson(message) };
}

/** POST /api/chat/loadMessages: `nextCursor` already encoded for the wire. */
export function messagePageJson(
  conversationId: string,
  page: { headId: string | null; messages: { message: Message; siblings?: Siblings }[] },
  nextCursor: string | null,
): Body<typeof out.messageListResponse> {
  return {
    status: 'ok',
    conversation_id: conversationId,
    messages: page.messages.map(({ message, siblings }) => (siblings ? branchMessageJson(message, siblings) : messageJson(message))),
    next_cursor: nextCursor,
    head_id: page.headId,
  };
}

/** POST /api/chat/switchBranch */
export function switchedBranchJson(conversationId: string, headId: string | null): Body<typeof out.switchedBranchResponse> {
  return { status: 'ok', conversation_id: conversationId, head_id: headId };
}

/** DELETE /api/chat/deleteMessages */
export function deletedJson(deleted: number): Body<typeof out.deletedResponse> {
  return { status: 'ok', deleted };
}

export interface SavedSessionFields {
  session: Session;
  messageCount: number;
  messagesSaved: number;
}

/** POST /api/chat/saveSession */
export function savedSessionJson(result: SavedSessionFields): Body<typeof out.savedSessionResponse> {
  return { status: 'ok', session: sessionJson(result.session, result.messageCount), messages_saved: result.messagesSaved };
}

/** GET /api/chat/conversations: `nextCursor` already encoded for the wire. */
export function conversationPageJson(conversations: ConversationView[], nextCursor: string | null): Body<typeof out.conversationListResponse> {
  return { status: 'ok', conversations: conversations.map(conversationJson), next_cursor: nextCursor };
}

export interface SearchResultFields {
  message: Message;
  conversationTitle: string | null;
  snippet: string;
  highlights: { start: number; end: number }[];
}

/** GET /api/chat/search: `nextCursor` already encoded for the wire. */
export function searchResultsJson(results: SearchResultFields[], nextCursor: string | null): Body<typeof out.searchResponse> {
  return {
    status: 'ok',
    results: results.map((result) => ({
      message: messageJson(result.message),
      conversation_id: result.message.conversationId,
      conversation_title: result.conversationTitle,
      snippet: result.snippet,
      highlights: result.highlights.map(({ start, end }) => ({ start, end })),
    })),
    next_cursor: nextCursor,
  };
}

/** POST /api/users/{user_id}/import */
export function importReportJson(report: ImportReport): Body<typeof out.importResponse> {
  return { status: 'ok', conversations: report.conversations, messages: report.messages, errors: report.errors };
}
