import type { TokenUsage } from '../../domain/reply.js';

/**
 * Where the service's use cases count what a user consumed: a reply's tokens when it ends (the
 * model's count, else an estimate), and characters of speech as they are answered. Counting
 * never waits and never fails: the counts are sent to the store in batches (UsageMeter).
 */
export interface UsageRecorder {
  countTokens(userId: string, model: string, usage: TokenUsage): void;
  /** Speech for `userId`, or for no user (null or undefined). */
  countSpeech(userId: string | null | undefined, characters: number): void;
}
