import type { MessageSearch, SearchHit, SearchPage, SearchPosition, SearchRequest, SearchStage } from '../../../application/ports/message-search.js';
import type { Message } from '../../../domain/message.js';
import { compareCodePoints } from '../../../domain/text.js';
import { conversationTitleIn } from './in-memory-conversation-repository.js';
import type { MemoryStore, StoredConversation } from './memory-store.js';
import { compileQuery, type Scored } from './search-matching.js';
import type { TextAnalyzer } from './search-text.js';

/**
 * Conversations whose messages may be searched. Temporary conversations (issue 24) are to be
 * left out here: `return !stored.conversation.temporary`.
 */
export function isSearchableConversation(stored: StoredConversation): boolean {
  return !stored.conversation.temporary;
}

/**
 * Search by scanning the user's messages: the demo store's answer to what PostgreSQL answers
 * from its indexes (same query syntax, stemming, fallback and order; ranks are its own).
 */
export class InMemoryMessageSearch implements MessageSearch {
  constructor(
    private readonly store: MemoryStore,
    private readonly analyzer: TextAnalyzer,
  ) {}

  async search(request: SearchRequest): Promise<SearchPage> {
    const query = compileQuery(request.query, this.analyzer);
    const candidates = this.candidates(request);
    const scoreAll = (stage: SearchStage) =>
      candidates.flatMap((message) => {
        const scored = stage === 'words' ? query.byWords(message) : query.loosely(message);
        return scored ? [{ message, stage, ...scored }] : [];
      });
    let found = scoreAll(request.after?.stage ?? 'words');
    if (request.after === null && found.length === 0) found = scoreAll('loose');
    const ordered = found.map((hit) => ({ ...hit, position: positionOf(hit) })).sort((a, b) => compare(a.position, b.position));
    const after = request.after;
    const rest = after ? ordered.filter((hit) => compare(hit.position, after) > 0) : ordered;
    const page = rest.slice(0, request.limit);
    return {
      hits: page.map((hit): SearchHit => ({
        message: hit.message,
        conversationTitle: conversationTitleIn(this.store, hit.message.conversationId),
        matches: hit.matches,
        position: hit.position,
      })),
      next: rest.length > request.limit ? page.at(-1)!.position : null,
    };
  }

  /** The user's completed messages in searchable conversations, within the filters. */
  private candidates({ userId, filters }: SearchRequest): Message[] {
    const conversations = filters.conversationId === null ? [...this.store.conversations.values()] : [this.store.conversations.get(filters.conversationId)].flatMap((c) => c ?? []);
    return conversations
      .filter((stored) => stored.conversation.userId === userId && isSearchableConversation(stored))
      .flatMap((stored) => this.store.timelines.get(stored.conversation.conversationId) ?? [])
      .map((entry) => entry.message)
      .filter(
        (m) =>
          m.status === 'completed' &&
          m.userId === userId &&
          (filters.role === null || m.role === filters.role) &&
          (filters.from === null || m.createdAt >= filters.from) &&
          (filters.to === null || m.createdAt <= filters.to),
      );
  }
}

const positionOf = (hit: Scored & { message: Message; stage: SearchStage }): SearchPosition => ({
  stage: hit.stage,
  rank: hit.rank,
  createdAt: hit.message.createdAt,
  messageId: hit.message.messageId,
});

/** The results' one order: rank, then recency, then id, all descending (ids by code point, as PostgreSQL's "C" collation). */
function compare(a: SearchPosition, b: SearchPosition): number {
  return b.rank - a.rank || b.createdAt.getTime() - a.createdAt.getTime() || compareCodePoints(b.messageId, a.messageId);
}
