import pg from 'pg';
import type { ReplyNews, ReplyNotifications } from '../../../application/ports/reply-notifications.js';
import { replyLength } from '../../../domain/reply.js';

/** Pieces and ends of replies (payload: a JSON list of `{ r, f, t }` pieces and `{ r, e: 1 }` ends; an earlier version's single object is read too). */
export const NEWS_CHANNEL = 'assistant_reply_news';
/** Follows of replies (payload: JSON `[[replyId, from], …]`, the follows sent together; an earlier version's `{ r, f }` is read too). */
export const FOLLOW_CHANNEL = 'assistant_reply_follows';
/** Stops asked for (payload: the reply's id). */
export const STOP_CHANNEL = 'assistant_reply_stops';

/** PostgreSQL refuses a payload of 8,000 bytes or more; a piece is split to stay below this. */
const MAX_PAYLOAD_BYTES = 7900;
/** A notice's payload at most: a list of parts (a piece alone in its brackets included). */
const MAX_NOTICE_BYTES = MAX_PAYLOAD_BYTES + 2;
/** Notices waiting to be sent beyond this many are dropped (followers find the gap and ask again). */
const MAX_QUEUED = 10_000;
/** How long an instance that follows no reply any more keeps listening to the news (a next follow often comes soon). */
const NEWS_LINGER_MS = 5000;
/**
 * Statements of notices start at most this often. Each is a transaction of its own, which takes a
 * transaction id (PostgreSQL gives one to every transaction that notifies) and writes its commit:
 * sent one after another as fast as they came back, two instances streaming 1,000 followed
 * replies (a piece every 500 ms each) took about 700 transaction ids a second; now about 180.
 * Under load the notices of many replies wait up to this long and go out together; a notice after
 * a quiet spell goes at once.
 */
const SEND_GAP_MS = 10;
/**
 * How often the connection is asked for a sign of life. A connection behind a network that went
 * silent raises nothing by itself: without this, an instance would neither hear news nor send its
 * stops (each waiting on it for ever) until the operating system gave the socket up.
 */
const HEARTBEAT_MS = 10_000;

export interface PostgresNotificationsOptions {
  url: string;
  /** Bound on connecting; a statement on the connection that has no answer 250 ms past it means the connection is lost. */
  timeoutMs: number;
  /** Told once per change of state (connected, lost), never with credentials. */
  onState?: (state: 'listening' | 'lost', error?: unknown) => void;
}

type Published = Exclude<ReplyNews, { type: 'look' }>;
interface Notice {
  channel: string;
  payload: string;
  /** For a piece still waiting to be sent: the next ones of its reply join it. */
  piece?: { replyId: string; from: number; text: string; end: number };
}

/**
 * News of replies between instances through PostgreSQL's LISTEN/NOTIFY, on one dedicated
 * connection per instance that listens and also sends. Nothing is ever notified inside a
 * transaction that stores replies or messages (a transaction with a pending NOTIFY takes a
 * database-wide lock at commit): notices are sent here, each batch in one statement of its own,
 * one batch at a time and at most one per SEND_GAP_MS; what comes meanwhile waits, and a reply's
 * pieces that wait are merged.
 * A piece too big for one notice is split. A lost connection is re-made with back-off; notices
 * sent meanwhile are lost, so every watcher is told to `look` once it is back.
 */
export class PostgresReplyNotifications implements ReplyNotifications {
  private readonly watchers = new Map<string, Set<(news: ReplyNews) => void>>();
  private readonly followListeners = new Set<(replyId: string, from: number) => void>();
  private readonly stopListeners = new Set<(replyId: string) => void>();
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = 250;
  private retry: NodeJS.Timeout | undefined;
  private queue: Notice[] = [];
  /** The last piece waiting in `queue` for each reply. */
  private lastPiece = new Map<string, Notice>();
  private sending: Promise<void> | null = null;
  /** When the last statement of notices started (performance.now()), and the wait for the next one. */
  private lastSent = Number.NEGATIVE_INFINITY;
  private gap: NodeJS.Timeout | undefined;
  /** Follows waiting to be sent: they go out together, as many to a notice as fit. */
  private follows: [string, number][] = [];
  /** Whether the connection listens to the news: only while this instance follows some reply. */
  private hearingNews = false;
  private stopHearing: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly options: PostgresNotificationsOptions) {}

  /** Connects and listens; resolves once listening (or throws what connecting threw). */
  async start(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.timeoutMs,
      query_timeout: this.options.timeoutMs + 250,
      keepAlive: true,
      application_name: 'assistant-backend-notifications',
    });
    client.on('notification', (notice) => this.dispatch(notice.channel, notice.payload ?? ''));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    await client.connect();
    const hearNews = this.watchers.size > 0;
    // Notices are not kept anyway (a listener that was away reads the store): their commits need not wait for the disk.
    await client.query(`set synchronous_commit to off; ${hearNews ? `listen ${NEWS_CHANNEL}; ` : ''}listen ${FOLLOW_CHANNEL}; listen ${STOP_CHANNEL}`);
    this.hearingNews = hearNews;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = 250;
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => void client.query('select 1').catch((error: unknown) => this.lost(client, error)), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.options.onState?.('listening');
    for (const [replyId, set] of this.watchers) for (const onNews of set) onNews({ type: 'look', replyId });
    this.send();
  }

  watch(replyId: string, onNews: (news: ReplyNews) => void): () => void {
    let set = this.watchers.get(replyId);
    if (!set) this.watchers.set(replyId, (set = new Set()));
    set.add(onNews);
    this.hearNews();
    return () => {
      set.delete(onNews);
      if (set.size === 0 && this.watchers.get(replyId) === set) this.watchers.delete(replyId);
      if (this.watchers.size === 0) this.lingerThenStopHearing();
    };
  }

  follow(replyId: string, from: number): void {
    if (this.closed || this.follows.length >= MAX_QUEUED) return;
    this.follows.push([replyId, from]);
    this.send();
  }

  onFollow(onFollow: (replyId: string, from: number) => void): () => void {
    this.followListeners.add(onFollow);
    return () => this.followListeners.delete(onFollow);
  }

  publish(news: Published): void {
    if (news.type === 'end') return this.enqueue({ channel: NEWS_CHANNEL, payload: JSON.stringify({ r: news.replyId, e: 1 }) });
    if (news.text === '') return;
    const waiting = this.lastPiece.get(news.replyId);
    if (waiting?.piece && waiting.piece.end === news.from) {
      // Coalesced with the piece of the same reply still waiting, while the two fit one notice.
      const joined = pieceNotice(news.replyId, waiting.piece.from, waiting.piece.text + news.text);
      if (joined) return void Object.assign(waiting, joined);
    }
    for (const notice of pieceNotices(news.replyId, news.from, news.text)) this.enqueue(notice);
  }

  async requestStop(replyId: string): Promise<void> {
    const client = this.client;
    if (!client) throw new Error('not listening to the database');
    try {
      await client.query('select pg_notify($1, $2)', [STOP_CHANNEL, replyId]);
    } catch (error) {
      // No answer within the bound: the connection is gone silent (it is re-made); the caller stores the stop itself.
      this.lost(client, error);
      throw error;
    }
  }

  onStopRequest(onStop: (replyId: string) => void): () => void {
    this.stopListeners.add(onStop);
    return () => this.stopListeners.delete(onStop);
  }

  /** Sends what waits (the last ends of replies among it), then stops listening. */
  async close(): Promise<void> {
    for (let batches = 0; batches < 10 && this.client && (this.sending || this.queue.length > 0 || this.follows.length > 0); batches++) {
      this.send(true);
      await this.sending;
    }
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.gap);
    clearTimeout(this.retry);
    clearTimeout(this.stopHearing);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /**
   * Listens to the news from now on (an instance that follows no reply does not receive every
   * other instance's pieces). The LISTEN is sent before anything this watcher then sends on the
   * same connection (its follow), so the pieces its follow brings are heard.
   */
  private hearNews(): void {
    clearTimeout(this.stopHearing);
    this.stopHearing = undefined;
    if (this.hearingNews || !this.client) return;
    this.hearingNews = true;
    this.client.query(`listen ${NEWS_CHANNEL}`).catch(() => undefined); // a lost connection is re-made, and listens again
  }

  private lingerThenStopHearing(): void {
    if (!this.hearingNews || this.stopHearing) return;
    this.stopHearing = setTimeout(() => {
      this.stopHearing = undefined;
      if (this.watchers.size > 0 || !this.client || !this.hearingNews) return;
      this.hearingNews = false;
      this.client.query(`unlisten ${NEWS_CHANNEL}`).catch(() => undefined);
    }, NEWS_LINGER_MS);
    this.stopHearing.unref();
  }

  private enqueue(notice: Notice): void {
    if (this.closed || this.queue.length >= MAX_QUEUED) return;
    this.queue.push(notice);
    if (notice.piece) this.lastPiece.set(notice.piece.replyId, notice);
    this.send();
  }

  /** One batch at a time, each in one statement of its own (its own short transaction), at most one per SEND_GAP_MS unless `now`. */
  private send(now = false): void {
    const client = this.client;
    if (this.sending || !client || (this.queue.length === 0 && this.follows.length === 0)) return;
    if (!now) {
      if (this.gap) return;
      const wait = this.lastSent + SEND_GAP_MS - performance.now();
      if (wait > 0) {
        this.gap = setTimeout(() => {
          this.gap = undefined;
          this.send();
        }, wait);
        this.gap.unref();
        return;
      }
    }
    clearTimeout(this.gap);
    this.gap = undefined;
    this.lastSent = performance.now();
    const batch = [...packed(NEWS_CHANNEL, this.queue.map((n) => n.payload)), ...packed(FOLLOW_CHANNEL, followParts(this.follows))];
    this.queue = [];
    this.follows = [];
    this.lastPiece.clear();
    this.sending = client
      .query('select pg_notify(n.channel, n.payload) from unnest($1::text[], $2::text[]) as n(channel, payload)', [
        batch.map((n) => n.channel),
        batch.map((n) => n.payload),
      ])
      .then(
        () => undefined,
        // The connection is lost (re-made, watchers told to look), silent past the bound (then lost
        // here), or the batch refused: followers ask again.
        (error: unknown) => {
          if (isReadTimeout(error)) this.lost(client, error);
        },
      )
      .finally(() => {
        this.sending = null;
        this.send();
      });
  }

  private dispatch(channel: string, payload: string): void {
    if (channel === STOP_CHANNEL) {
      for (const onStop of this.stopListeners) onStop(payload);
      return;
    }
    if (channel === FOLLOW_CHANNEL) {
      for (const [replyId, from] of decodeFollows(payload)) for (const onFollow of this.followListeners) onFollow(replyId, from);
      return;
    }
    for (const decoded of decodeNews(payload)) {
      const set = this.watchers.get(decoded.r);
      if (!set) continue;
      const news: ReplyNews | null =
        decoded.e === 1 ? { type: 'end', replyId: decoded.r } : typeof decoded.f === 'number' && typeof decoded.t === 'string' ? { type: 'piece', replyId: decoded.r, from: decoded.f, text: decoded.t } : null;
      if (news) for (const onNews of set) onNews(news);
    }
  }

  private lost(client: pg.Client, error?: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    this.hearingNews = false;
    clearInterval(this.heartbeat);
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    // What waited to be sent is dropped: followers find the gap, or read the store.
    clearTimeout(this.gap);
    this.gap = undefined;
    this.queue = [];
    this.follows = [];
    this.lastPiece.clear();
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

/** The driver's error for a statement that had no answer within `query_timeout`. */
const isReadTimeout = (error: unknown) => error instanceof Error && error.message === 'Query read timeout';

/** Follows as parts of a notice, each once. */
function followParts(follows: [string, number][]): string[] {
  return [...new Set(follows.map((follow) => JSON.stringify(follow)))];
}

/** Parts (JSON values) as few notices as hold them, each a JSON list within the payload limit. */
function packed(channel: string, parts: string[]): Notice[] {
  const notices: Notice[] = [];
  let held: string[] = [];
  let bytes = 2; // the brackets
  const flush = () => {
    if (held.length > 0) notices.push({ channel, payload: `[${held.join(',')}]` });
    held = [];
    bytes = 2;
  };
  for (const part of parts) {
    const size = Buffer.byteLength(part) + 1; // and a comma
    if (2 + size > MAX_NOTICE_BYTES) continue; // too big for any notice (an id that long): its follower reads the store
    if (bytes + size > MAX_NOTICE_BYTES) flush();
    held.push(part);
    bytes += size;
  }
  flush();
  return notices;
}

/** The follows a notice carries: `[[replyId, from], …]`, or an earlier version's `{ r, f }`. */
function decodeFollows(payload: string): [string, number][] {
  try {
    const value: unknown = JSON.parse(payload);
    const list = Array.isArray(value) ? value : [[(value as { r?: unknown } | null)?.r, (value as { f?: unknown } | null)?.f]];
    return list.filter((item): item is [string, number] => Array.isArray(item) && typeof item[0] === 'string' && typeof item[1] === 'number');
  } catch {
    return [];
  }
}

/** A piece (`r` the reply, `f` and `t`) or an end (`r`, `e`) as sent. */
type NewsPart = { r: string; f?: unknown; t?: unknown; e?: unknown };

/** The news a notice carries: a list of parts, or an earlier version's single part. */
function decodeNews(payload: string): NewsPart[] {
  try {
    const value: unknown = JSON.parse(payload);
    return (Array.isArray(value) ? value : [value]).filter((part): part is NewsPart => typeof part === 'object' && part !== null && typeof (part as { r?: unknown }).r === 'string');
  } catch {
    return [];
  }
}

/** The notice of a piece, or null when it would not fit in one. */
function pieceNotice(replyId: string, from: number, text: string): Notice | null {
  const payload = JSON.stringify({ r: replyId, f: from, t: text });
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) return null;
  return { channel: NEWS_CHANNEL, payload, piece: { replyId, from, text, end: from + replyLength(text) } };
}

/** A piece as notices that each fit, split between code points. */
function pieceNotices(replyId: string, from: number, text: string): Notice[] {
  const whole = pieceNotice(replyId, from, text);
  if (whole) return [whole];
  const points = [...text];
  if (points.length <= 1) return []; // one code point cannot be too big; an id that is makes nothing sendable
  const half = Math.floor(points.length / 2);
  const head = points.slice(0, half).join('');
  return [...pieceNotices(replyId, from, head), ...pieceNotices(replyId, from + half, points.slice(half).join(''))];
}
