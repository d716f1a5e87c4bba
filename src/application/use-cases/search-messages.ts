import { FieldInvalidError } from '../../domain/errors.js';
import type { Message, Role } from '../../domain/message.js';
import { assertSearchText, parseSearchQuery } from '../../domain/search-query.js';
import { snippetOf, type Span } from '../../domain/snippet.js';
import type { SearchPosition } from '../ports/message-search.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';

export interface SearchMessagesInput {
  userId: string;
  /** Web-search syntax: words, "phrases", -excluded, OR. */
  q: string;
  conversationId: string | null;
  role: Role | null;
  /** Inclusive bounds on created_at. */
  from: Date | null;
  to: Date | null;
  limit: number;
  /** Where the previous page ended; null for the first page. */
  after: SearchPosition | null;
}

export interface SearchResult {
  message: Message;
  conversationTitle: string | null;
  /** Plain text around the best match. */
  snippet: string;
  /** What matched, as code-point offsets into `snippet`. */
  highlights: Span[];
}

export interface SearchResults {
  results: SearchResult[];
  next: SearchPosition | null;
}

const NOTHING: SearchResults = { results: [], next: null };

/**
 * GET /api/chat/search: the caller's own completed messages matching the query, most relevant
 * first, then most recent. A query that cannot match anything (only excluded terms, say) finds
 * nothing. Naming another user's conversation is "not found", as everywhere.
 */
export class SearchMessages {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  async execute(input: SearchMessagesInput): Promise<SearchResults> {
    const query = parseSearchQuery(assertSearchText(input.q));
    if (input.from !== null && input.to !== null && input.to < input.from) throw new FieldInvalidError('to', 'must not be before from');
    if (query.required.length === 0) return NOTHING;
    return this.unitOfWork.run(
      async (repositories) => {
        const { conversationId } = input;
        if (conversationId !== null) {
          const conversation = await repositories.conversations.findById(conversationId);
          if (conversation === null) return NOTHING;
          conversation.assertOwnedBy(input.userId);
        }
        const page = await repositories.search.search({
          userId: input.userId,
          query,
          filters: { conversationId, role: input.role, from: input.from, to: input.to },
          limit: input.limit,
          after: input.after,
        });
        const results = page.hits.map((hit): SearchResult => {
          const snippet = snippetOf(hit.message.text, hit.matches);
          return { message: hit.message, conversationTitle: hit.conversationTitle, snippet: snippet.text, highlights: snippet.highlights };
        });
        return { results, next: page.next };
      },
      { atomic: false },
    );
  }
}
