import { EventEmitter } from 'node:events';
import type { ReplyNews, ReplyNotifications } from '../../../application/ports/reply-notifications.js';

/** News of replies within one process: what the in-memory store offers (one process, one store). */
export class InMemoryReplyNotifications implements ReplyNotifications {
  private readonly news = new EventEmitter().setMaxListeners(0);
  private readonly follows = new EventEmitter().setMaxListeners(0);
  private readonly stops = new EventEmitter().setMaxListeners(0);

  watch(replyId: string, onNews: (news: ReplyNews) => void): () => void {
    this.news.on(replyId, onNews);
    return () => this.news.off(replyId, onNews);
  }

  follow(replyId: string, from: number): void {
    this.follows.emit('follow', replyId, from);
  }

  onFollow(onFollow: (replyId: string, from: number) => void): () => void {
    this.follows.on('follow', onFollow);
    return () => this.follows.off('follow', onFollow);
  }

  publish(news: Exclude<ReplyNews, { type: 'look' }>): void {
    this.news.emit(news.replyId, news);
  }

  async requestStop(replyId: string): Promise<void> {
    this.stops.emit('stop', replyId);
  }

  onStopRequest(onStop: (replyId: string) => void): () => void {
    this.stops.on('stop', onStop);
    return () => this.stops.off('stop', onStop);
  }
}
