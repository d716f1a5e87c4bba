import { ConversationNotFoundError, FieldInvalidError } from './errors.js';
import { assertClientId } from './ids.js';
import { atMostCodePoints, hasUnstorableCharacters, truncateCodePoints, UNSTORABLE_RULE } from './text.js';

/**
 * The characters of a first message a store need read to title a conversation by it: far more than
 * the title keeps, so that runs of white space (collapsed first) do not shorten it.
 */
export const TITLE_SOURCE_PREFIX = 1000;
/** A title made from the first user message: at most this many code points, cut at a word. */
export const FALLBACK_TITLE_LENGTH = 60;
/** A title a user sets: 1..200 code points after trimming. */
export const MAX_TITLE_LENGTH = 200;

/** Who named a conversation: its user, a language model, or the start of its first message. */
export const TITLE_SOURCES = ['user', 'generated', 'first_message'] as const;
export type TitleSource = (typeof TITLE_SOURCES)[number];

/**
 * The title a conversation shows: its user's or a model's; else its latest titled session's (a
 * title its user gave, held to a user's title's rules: trimmed, at most 200 code points, and none
 * when it is white space only); else the one made from its first message, stored or made now the
 * same way (at most 60 code points, cut at a word).
 */
export function shownTitle(stored: string | null, source: TitleSource | null, sessionTitle: string | null, firstText: string | null): { title: string | null; titleSource: TitleSource | null } {
  if (stored !== null && (source === 'user' || source === 'generated')) return { title: stored, titleSource: source };
  const session = sessionTitle?.trim() ?? '';
  if (session !== '') return { title: truncateCodePoints(session, MAX_TITLE_LENGTH), titleSource: 'user' };
  if (stored !== null) return { title: stored, titleSource: source };
  const fallback = firstText === null ? '' : titleFromFirstMessage(firstText);
  return fallback === '' ? { title: null, titleSource: null } : { title: fallback, titleSource: 'first_message' };
}

/** The title made from a first user message: its start, at most 60 code points, cut at a word (one line). */
export function titleFromFirstMessage(text: string): string {
  const line = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  if (atMostCodePoints(line, FALLBACK_TITLE_LENGTH)) return line;
  const cut = truncateCodePoints(line, FALLBACK_TITLE_LENGTH + 1);
  // No space to cut at: the first code points whole (slicing to -1 split the last pair of an emoji).
  const space = cut.lastIndexOf(' ');
  const atWord = space > 0 ? cut.slice(0, space).trim() : '';
  return atWord === '' ? truncateCodePoints(line, FALLBACK_TITLE_LENGTH) : atWord;
}

/** A title as a user sets it: trimmed, 1..200 code points, storable; else FieldInvalidError('title'). */
export function userTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === '' || !atMostCodePoints(trimmed, MAX_TITLE_LENGTH)) throw new FieldInvalidError('title', `must be 1 to ${MAX_TITLE_LENGTH} characters after trimming, or null`);
  if (hasUnstorableCharacters(trimmed)) throw new FieldInvalidError('title', UNSTORABLE_RULE);
  return trimmed;
}

/** A title a language model proposed, made safe to show: one line without control characters, no quotes around it, at most 8 words. */
export function generatedTitle(proposal: string): string | null {
  const line = proposal.replace(/[\s\p{Cc}]+/gu, ' ').trim().replace(/^["'“”‘’«»]+|["'“”‘’«».]+$/g, '').trim();
  if (line === '' || hasUnstorableCharacters(line)) return null;
  const words = line.split(' ').slice(0, 8).join(' ');
  return truncateCodePoints(words, MAX_TITLE_LENGTH);
}

export interface ConversationProps {
  conversationId: string;
  userId: string;
  createdAt: Date;
  /** A temporary conversation is never listed, searched or exported, and is deleted some time after its last activity. */
  temporary?: boolean;
}

/** A conversation belongs to the user who first wrote to it. */
export class Conversation {
  private constructor(
    readonly conversationId: string,
    readonly userId: string,
    readonly createdAt: Date,
    readonly temporary: boolean,
  ) {}

  static create(props: ConversationProps): Conversation {
    return new Conversation(assertClientId(props.conversationId, 'conversation_id'), assertClientId(props.userId, 'user_id'), props.createdAt, props.temporary === true);
  }

  static restore(props: ConversationProps): Conversation {
    return new Conversation(props.conversationId, props.userId, props.createdAt, props.temporary === true);
  }

  isOwnedBy(userId: string): boolean {
    return this.userId === userId;
  }

  /** Another user's conversation is reported as not found, so ids cannot be probed. */
  assertOwnedBy(userId: string): this {
    if (!this.isOwnedBy(userId)) throw new ConversationNotFoundError(this.conversationId);
    return this;
  }
}

/** What a user may change of a conversation. */
export interface ConversationChanges {
  /** A title of their own; null hands the title back to the service. */
  title?: string | null;
  pinned?: boolean;
  archived?: boolean;
}
