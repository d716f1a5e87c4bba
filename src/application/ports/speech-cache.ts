/** Whose text an entry speaks: a stored message's user and conversation. */
export interface SpeechOwner {
  userId: string;
  /** Unknown for the speech of a reply in a conversation not yet stored. */
  conversationId?: string;
}

/** Finished audio by request key; it may forget entries at any time (it is bounded). */
export interface SpeechCache {
  get(key: string): Promise<Uint8Array | null>;
  /** Stores audio; with `owner`, the entry is also forgotten when that user or conversation is. */
  set(key: string, audio: Uint8Array, owner?: SpeechOwner): Promise<void>;
  /** Forgets every entry made of a user's, or a conversation's, messages. */
  forget(whose: { userId: string } | { conversationId: string }): Promise<void>;
}
