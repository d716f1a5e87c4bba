import { EventEmitter } from 'node:events';
import type { ReplyNotifications } from '../../../application/ports/reply-notifications.js';

/** Notices of replies within one process: what the in-memory store offers (one process, one store). */
export class InMemoryReplyNotifications implements ReplyNotifications {
  private readonly changes = new EventEmitter().setMaxListeners(0);
  private readonly stops = new EventEmitter().setMaxListeners(0);

  /** Called by the in-memory store after every write to a reply. */
  announce(replyId: string): void {
    this.changes.emit(replyId);
  }

  watch(replyId: string, onChange: () => void): () => void {
    this.changes.on(replyId, onChange);
    return () => this.changes.off(replyId, onChange);
  }

  async requestStop(replyId: string): Promise<void> {
    this.stops.emit('stop', replyId);
  }

  onStopRequest(onStop: (replyId: string) => void): () => void {
    this.stops.on('stop', onStop);
    return () => this.stops.off('stop', onStop);
  }
}
