import type { Logger } from 'pino';
import type { Repositories, UnitOfWork } from '../../../application/ports/unit-of-work.js';
import { InMemoryConversationRepository } from './in-memory-conversation-repository.js';
import { InMemoryMessageRepository } from './in-memory-message-repository.js';
import { InMemoryMessageSearch } from './in-memory-message-search.js';
import { InMemoryReplyNotifications } from './in-memory-reply-notifications.js';
import { InMemoryReplyRepository } from './in-memory-reply-repository.js';
import { InMemoryResponseRepository } from './in-memory-response-repository.js';
import { InMemorySessionRepository } from './in-memory-session-repository.js';
import { dropLeastRecentlyActive, type Dropped } from './memory-bound.js';
import { MemoryStore } from './memory-store.js';
import { TextAnalyzer } from './search-text.js';
import { UndoLog } from './undo-log.js';

export interface InMemoryStoreOptions {
  /** Beyond this many messages the least recently active conversations are dropped whole. */
  maxMessages?: number;
  /** Told (counts only) when conversations are dropped. */
  logger?: Pick<Logger, 'warn'>;
  /** News of replies within the process (the store's own, unless given). */
  notifications?: InMemoryReplyNotifications;
  /** The text-search configuration whose stemming search follows (SEARCH_LANGUAGE); `english` when not given. */
  searchLanguage?: string;
}

/** A full store drops on nearly every write: the first drop is reported at once, later ones at most once a minute. */
const REPORT_INTERVAL_MS = 60_000;

/**
 * Transactions over a MemoryStore. They run one at a time, so each sees a consistent store
 * and concurrent requests cannot interleave their writes; a failed one is undone. After each
 * one the store is brought back within its bound.
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  /** The last transaction queued: each starts once the one before it has ended (succeeded or failed). */
  private last: Promise<unknown> = Promise.resolve();
  private readonly maxMessages: number;
  private unreported: Dropped = { conversations: 0, messages: 0, sessions: 0 };
  private lastReport = -Infinity;
  readonly notifications: InMemoryReplyNotifications;
  private readonly analyzer: TextAnalyzer;

  constructor(
    readonly store: MemoryStore = new MemoryStore(),
    private readonly options: InMemoryStoreOptions = {},
  ) {
    this.maxMessages = options.maxMessages ?? 100_000;
    this.notifications = options.notifications ?? new InMemoryReplyNotifications();
    this.analyzer = new TextAnalyzer(options.searchLanguage ?? 'english');
  }

  run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const result = this.last.then(() => this.transaction(work));
    this.last = result.catch(() => undefined);
    return result;
  }

  private async transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const undo = new UndoLog();
    let result: T;
    try {
      result = await work({
        conversations: new InMemoryConversationRepository(this.store, undo),
        messages: new InMemoryMessageRepository(this.store, undo),
        search: new InMemoryMessageSearch(this.store, this.analyzer),
        sessions: new InMemorySessionRepository(this.store, undo),
        replies: new InMemoryReplyRepository(this.store, undo),
        responses: new InMemoryResponseRepository(this.store, undo),
      });
    } catch (error) {
      undo.rollback();
      throw error;
    }
    this.keepWithinBound();
    return result;
  }

  private keepWithinBound(): void {
    const dropped = dropLeastRecentlyActive(this.store, this.maxMessages);
    if (dropped.conversations + dropped.messages + dropped.sessions === 0) return;
    this.unreported = {
      conversations: this.unreported.conversations + dropped.conversations,
      messages: this.unreported.messages + dropped.messages,
      sessions: this.unreported.sessions + dropped.sessions,
    };
    if (Date.now() - this.lastReport < REPORT_INTERVAL_MS) return;
    const { conversations, messages, sessions } = this.unreported;
    this.options.logger?.warn(
      { droppedConversations: conversations, droppedMessages: messages, droppedSessions: sessions, maxMessages: this.maxMessages },
      `in-memory store full (MEMORY_STORE_MAX_MESSAGES=${this.maxMessages}): dropped the ${conversations} least recently active conversation(s), ${messages} message(s)`,
    );
    this.unreported = { conversations: 0, messages: 0, sessions: 0 };
    this.lastReport = Date.now();
  }
}
