import type { ConversationPosition } from '../ports/conversation-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { viewOf, type ConversationView } from './conversation-view.js';
import type { ConversationSettings } from './sweep-conversations.js';

export interface ListConversationsInput {
  userId: string;
  limit: number;
  /** Where the previous page ended; null for the first page. */
  after: ConversationPosition | null;
  /** True: only archived conversations; otherwise they are left out. */
  archived: boolean;
}

/** GET /api/chat/conversations: a user's conversations, pinned first, then most recently active; temporary ones never. */
export class ListConversations {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly settings: ConversationSettings,
  ) {}

  async execute(input: ListConversationsInput): Promise<{ items: ConversationView[]; next: ConversationPosition | null }> {
    const page = await this.unitOfWork.run((r) => r.conversations.listByUser(input.userId, input.limit, input.after, input.archived), { atomic: false });
    return { items: page.items.map((summary) => viewOf(summary, this.settings)), next: page.next };
  }
}
