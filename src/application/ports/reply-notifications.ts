/**
 * News of replies between the instances of the service (or within one process): that a
 * reply was written, and that someone asked for one to stop. Notices may be late, merged or,
 * rarely, lost; watchers read the reply itself and also look again now and then.
 */
export interface ReplyNotifications {
  /** Calls `onChange` whenever the reply is written, on any instance; returns how to stop watching. */
  watch(replyId: string, onChange: () => void): () => void;
  /** Tells every instance that a stop of the reply was asked for. */
  requestStop(replyId: string): Promise<void>;
  /** Calls `onStop` for every stop asked for (the producer checks whether the reply is its own). */
  onStopRequest(onStop: (replyId: string) => void): () => void;
}
