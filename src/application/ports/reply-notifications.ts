/**
 * What instances tell each other of a reply while it is produced: a reply's text pushed to
 * followers as it grows, which instances follow which replies, its end, and stops asked for.
 *
 * News travels outside every store transaction. It may be late, merged, split or, rarely, lost
 * (a connection that dropped): followers place each piece by its position, ask again from where
 * they stand when they find a gap, and read the stored reply now and then and when told to `look`.
 */
export type ReplyNews =
  /** Text of the reply starting at code point `from`. */
  | { type: 'piece'; replyId: string; from: number; text: string }
  /** The reply's end is stored: read it. */
  | { type: 'end'; replyId: string }
  /** News may have been lost (a connection re-made): read the stored reply and follow again. */
  | { type: 'look'; replyId: string };

export interface ReplyNotifications {
  /** Calls `onNews` with every piece and end published for the reply (and `look`); returns how to stop. */
  watch(replyId: string, onNews: (news: ReplyNews) => void): () => void;
  /**
   * Tells every instance that this one follows the reply from code point `from`: its producer
   * publishes what it has from there on, then each piece as it comes, for a while (followers
   * say it again while they follow: see reply-broadcast.ts).
   */
  follow(replyId: string, from: number): void;
  /** Calls `onFollow` for every follow said (on any instance); returns how to stop. */
  onFollow(onFollow: (replyId: string, from: number) => void): () => void;
  /** Sends a piece or an end of a reply this instance produces to every instance's watchers. */
  publish(news: Exclude<ReplyNews, { type: 'look' }>): void;
  /** Tells every instance that a stop of the reply was asked for. */
  requestStop(replyId: string): Promise<void>;
  /** Calls `onStop` for every stop asked for (the producer checks whether the reply is its own). */
  onStopRequest(onStop: (replyId: string) => void): () => void;
}
