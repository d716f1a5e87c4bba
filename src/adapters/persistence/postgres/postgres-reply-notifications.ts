import pg from 'pg';
import type { ReplyNotifications } from '../../../application/ports/reply-notifications.js';
import { REPLY_CHANNEL, STOP_CHANNEL } from './postgres-reply-repository.js';

export interface PostgresNotificationsOptions {
  url: string;
  /** Bound on connecting. */
  timeoutMs: number;
  /** Told once per change of state (connected, lost), never with credentials. */
  onState?: (state: 'listening' | 'lost', error?: unknown) => void;
}

/**
 * News of replies between instances through PostgreSQL itself: one dedicated connection per
 * instance LISTENs on the reply and stop channels (the repositories' statements NOTIFY as
 * they write). A lost connection is re-made with back-off; since notices sent meanwhile are
 * lost, every watcher is told to look again once it is back.
 */
export class PostgresReplyNotifications implements ReplyNotifications {
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly stopListeners = new Set<(replyId: string) => void>();
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = 250;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: PostgresNotificationsOptions) {}

  /** Connects and listens; resolves once listening (or throws what connecting threw). */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, connectionTimeoutMillis: this.options.timeoutMs, application_name: 'assistant-backend-notifications' });
    client.on('notification', (notice) => this.dispatch(notice.channel, notice.payload ?? ''));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(`listen ${REPLY_CHANNEL}; listen ${STOP_CHANNEL}`);
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = 250;
    this.options.onState?.('listening');
    for (const set of this.watchers.values()) for (const onChange of set) onChange();
  }

  watch(replyId: string, onChange: () => void): () => void {
    let set = this.watchers.get(replyId);
    if (!set) this.watchers.set(replyId, (set = new Set()));
    set.add(onChange);
    return () => {
      set.delete(onChange);
      if (set.size === 0 && this.watchers.get(replyId) === set) this.watchers.delete(replyId);
    };
  }

  async requestStop(replyId: string): Promise<void> {
    if (!this.client) throw new Error('not listening to the database');
    await this.client.query('select pg_notify($1, $2)', [STOP_CHANNEL, replyId]);
  }

  onStopRequest(onStop: (replyId: string) => void): () => void {
    this.stopListeners.add(onStop);
    return () => this.stopListeners.delete(onStop);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private dispatch(channel: string, replyId: string): void {
    if (channel === STOP_CHANNEL) for (const onStop of this.stopListeners) onStop(replyId);
    else for (const onChange of this.watchers.get(replyId) ?? []) onChange();
  }

  private lost(client: pg.Client, error?: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    this.options.onState?.('lost', error);
    this.reconnect();
  }

  private reconnect(): void {
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.start().catch(() => {
        this.retryMs = Math.min(this.retryMs * 2, 10_000);
        this.reconnect();
      });
    }, this.retryMs);
    this.retry.unref();
  }
}
