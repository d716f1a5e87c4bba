import type { Message, Role } from '../../domain/message.js';
import type { SearchQuery } from '../../domain/search-query.js';
import type { Span } from '../../domain/snippet.js';

/**
 * How a page of results was found. `words`: by the query's words (stemmed), phrases and
 * substrings of unspaced scripts, ranked by relevance; `loose`: when those found nothing, by
 * substrings and close misspellings of the query's terms.
 */
export type SearchStage = 'words' | 'loose';

/**
 * A result's place in the one order of results: rank (higher first, a whole number so that it
 * compares exactly), then recency, then message id (both descending).
 */
export interface SearchPosition {
  stage: SearchStage;
  rank: number;
  createdAt: Date;
  messageId: string;
}

export interface SearchFilters {
  conversationId: string | null;
  role: Role | null;
  /** Inclusive bounds on created_at. */
  from: Date | null;
  to: Date | null;
}

export interface SearchRequest {
  userId: string;
  /** Has at least one required group. */
  query: SearchQuery;
  filters: SearchFilters;
  limit: number;
  /** The position of the last result of the previous page; its stage is kept. */
  after: SearchPosition | null;
}

export interface SearchHit {
  message: Message;
  conversationTitle: string | null;
  /** What matched in the message's text, as code-point spans. */
  matches: Span[];
  position: SearchPosition;
}

export interface SearchPage {
  hits: SearchHit[];
  /** Position of the last hit, when more follow. */
  next: SearchPosition | null;
}

/**
 * Searching a user's own completed messages, in every branch of their conversations, except
 * conversations that are never searched (temporary ones). A store scans or uses its indexes;
 * both give the same answers for the same data.
 */
export interface MessageSearch {
  search(request: SearchRequest): Promise<SearchPage>;
}
