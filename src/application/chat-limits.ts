/** Limits the chat use cases enforce, taken from configuration. */
export interface ChatLimits {
  /** Longest message text, in code points. */
  maxTextLength: number;
  /** How much of the conversation the model sees: at most this many earlier messages... */
  historyMessages: number;
  /** ...and at most this many code points of them; the oldest are dropped first. */
  historyChars: number;
}

export const DEFAULT_CHAT_LIMITS: ChatLimits = {
  maxTextLength: 32_000,
  historyMessages: 20,
  historyChars: 12_000,
};
