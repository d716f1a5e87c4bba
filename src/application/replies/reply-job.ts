import { ChatModelFailedError, DependencyUnavailableError, DomainError, ReplyInterruptedError } from '../../domain/errors.js';
import type { Message } from '../../domain/message.js';
import { finished, isMoreOfInterrupted, replyLength, type CutShort, type ReplyOutcome } from '../../domain/reply.js';
import { estimateTokens } from '../../domain/usage.js';
import type { ChatChunk, ChatReply, TokenUsage } from '../ports/chat-model.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import type { Clock } from '../ports/clock.js';
import type { ConversationName } from '../ports/reply-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { TitleSource } from '../../domain/conversation.js';
import { Changes } from './signals.js';
import type { ReplyWrites, WrittenReply } from './reply-writes.js';

export interface ReplySettings {
  /** How often, at most, a growing reply is written to the store. */
  writeIntervalMs: number;
  /** A reply in progress that nobody advanced or kept alive for this long is taken to be dead. */
  staleMs: number;
  /**
   * While fewer replies than this are being made here, a new conversation's title is asked for at
   * once, beside its reply; from this many on, once the reply's first piece is out and no other
   * reply here still waits for its first piece (at most `titlesWaitMs` after its own), so that the
   * extra model calls do not hold up anyone's first words (TITLES_AT_ONCE_UNDER by default).
   */
  titlesAtOnceUnder?: number;
  /** How long, at most, a busy instance's title waits for the other replies' first pieces (TITLES_WAIT_MS by default). */
  titlesWaitMs?: number;
  /**
   * On a busy instance, how long no reply must have started before its waiting titles are asked
   * (TITLES_QUIET_MS by default): while a burst of new conversations is still coming in, its
   * first replies' first pieces come out before the last ones have begun, and the titles wait for
   * the burst's end, not just for a moment with no first piece awaited.
   */
  titlesQuietMs?: number;
}

/** Replies in progress on this instance from which titles wait for their reply's first piece (ReplySettings.titlesAtOnceUnder). */
export const TITLES_AT_ONCE_UNDER = 32;
/** How long, at most, a title waits for the first pieces of the other replies on a busy instance (ReplySettings.titlesWaitMs). */
export const TITLES_WAIT_MS = 3000;
/** How long a busy instance must have started no reply before it asks for its waiting titles (ReplySettings.titlesQuietMs). */
export const TITLES_QUIET_MS = 50;

/** Tries at storing a reply's end (waits of 2, 4 and 8 write intervals between them: 3.5 s by default). */
const FINISH_ATTEMPTS = 4;

/**
 * How a reply's model call learns that it should stop: `signal`, made when first read (the
 * reply's AbortController). On Node 20 an AbortSignal costs far more than its size to make and
 * collect (measured: an in-memory chat turn used 5 to 15 % less CPU without its one), so a call that
 * cannot be stopped midway never makes it.
 */
export interface StopSignal {
  readonly signal: AbortSignal;
}

/** The model's output for a reply: pieces of text, then one `finish`. */
export type Generate = (stop: StopSignal) => AsyncIterable<ChatChunk>;

/**
 * The model's whole reply at once (ChatModel.complete), for a reply nobody reads piece by piece:
 * its text is stored with its end, not written as it grows.
 */
export interface WholeReply {
  whole: (stop: StopSignal) => Promise<ChatReply>;
}

/** Where a reply's text comes from: pieces as the model makes them, or its whole reply at once. */
export type ReplySource = Generate | WholeReply;

/** Where a reply's tokens are counted when it ends: the model's count, else `estimate` of the text it wrote. */
export interface ReplyTokens {
  recorder: UsageRecorder;
  estimate?: (text: string) => TokenUsage;
}

/**
 * The name a conversation gets with its first reply: the model's proposal when it has come by
 * the end (else the fallback, and the proposal replaces it when it comes).
 */
export interface Naming {
  fallback: string;
  /**
   * Asks the model for its proposal, once: every call answers the same promise. Asked beside the
   * reply, or, on a busy instance, once the first pieces are out (ReplySettings.titlesAtOnceUnder),
   * and at the reply's end at the latest.
   */
  propose?: () => Promise<string | null>;
  /** Stores a late proposal (unless the user named the conversation meanwhile). */
  late?: (title: string) => Promise<unknown>;
}

/** The title a conversation was given with this reply. */
export interface GivenTitle {
  conversationId: string;
  title: string;
  source: TitleSource;
}

/** How a reply ended, as this instance saw it. */
export interface ReplyEnd {
  /** The reply as stored: finished; as written, when it was deleted meanwhile; or null when it was removed (stopped before its first piece). */
  message: Message | null;
  finishReason: string;
  /** Why it failed (the model, or storing it): streams end with an `error` event carrying this. */
  failure?: unknown;
}

/**
 * One reply produced by this instance, from its first piece to its stored end: it runs to its
 * end whoever listens (listeners read its shared text, each from its own position), has its
 * text written to the store with every other reply's (reply-writes.ts: at most every
 * `writeIntervalMs`, and its row kept alive while the model thinks), and stores the end — the
 * one place a reply is finished.
 */
export class ReplyJob implements WrittenReply {
  text = '';
  /** The text's length in code points. */
  length = 0;
  end: ReplyEnd | null = null;
  /** Set just before `end` when this reply named its conversation (the first turn's streams carry it). */
  title: GivenTitle | null = null;
  readonly changes = new Changes();
  readonly done: Promise<ReplyEnd>;
  /**
   * The latest pieces in order, the first of them number `firstRecent` (pieces are numbered from 0
   * as they come). A listener that has read every piece before them takes the new ones from here:
   * slicing `text`, which `+=` builds as a rope, makes V8 copy the whole text each time, so a
   * listener reading that way copied the reply once per piece (quadratic in its length). Dropped
   * at each batch write, so they hold at most a write interval's text; a listener left further
   * behind slices `text` once and goes on from here.
   */
  private recent: string[] = [];
  private firstRecent = 0;
  private readonly abort = new AbortController();
  private stopReason: CutShort | null = null;
  /** The text stored so far: UTF-16 units, and the same in code points. */
  private written = 0;
  private writtenPoints = 0;

  constructor(
    readonly reply: Message,
    source: ReplySource,
    private readonly store: UnitOfWork,
    private readonly writes: ReplyWrites,
    private readonly clock: Clock,
    private readonly settings: ReplySettings,
    private readonly naming?: Naming,
    private readonly tokens?: ReplyTokens,
    /** Told once: when the first piece is out (its listeners have it a macrotask later), or at the end when none came. */
    private readonly firstWords?: () => void,
  ) {
    writes.add(this);
    this.done = this.run(source);
  }

  get replyId(): string {
    return this.reply.messageId;
  }

  get running(): boolean {
    return this.end === null;
  }

  /** How many pieces have come so far. */
  get pieceCount(): number {
    return this.firstRecent + this.recent.length;
  }

  /** The pieces from number `n` to the latest, joined; undefined when they are no longer kept. */
  piecesFrom(n: number): string | undefined {
    const at = n - this.firstRecent;
    if (at < 0 || at > this.recent.length) return undefined;
    return at === this.recent.length - 1 ? this.recent[at] : this.recent.slice(at).join('');
  }

  /** Stops the model; the text so far is stored as the reply, with this finish reason. */
  stop(reason: CutShort): void {
    if (!this.running || this.stopReason) return;
    this.stopReason = reason;
    this.abort.abort(new Error(`reply ${reason}`));
  }

  private async run(source: ReplySource): Promise<ReplyEnd> {
    let modelEnd: Omit<ReplyOutcome, 'error'> | null = null;
    let failure: unknown;
    try {
      if (typeof source === 'function') {
        for await (const chunk of source(this.abort)) {
          if (chunk.type === 'finish') modelEnd = { finishReason: chunk.finishReason, model: chunk.model, usage: chunk.usage };
          else this.grow(chunk.text, true);
        }
      } else {
        const { text, finishReason, model, usage } = await source.whole(this.abort);
        // Stored with its end, in the next step: no write of its text before.
        this.grow(text, false);
        modelEnd = { finishReason, model, usage };
      }
      if (!this.stopReason && modelEnd === null) throw new ChatModelFailedError('the language model stopped without finishing its reply');
      if (!this.stopReason && this.text.trim() === '') throw new ChatModelFailedError('the language model returned an empty reply');
    } catch (error) {
      if (!this.stopReason) failure = error;
    }
    // Live streams of a reply cut off by a shutdown end with an error; it is stored as interrupted.
    if (this.stopReason === 'interrupted') failure = new ReplyInterruptedError('the service stopped while writing this reply; it is stored as it was');
    const finishReason = this.stopReason ?? (failure !== undefined ? 'error' : modelEnd!.finishReason);
    const outcome: ReplyOutcome = {
      finishReason,
      model: modelEnd?.model ?? modelOf(this.reply),
      usage: modelEnd?.usage ?? null,
      ...(finishReason === 'error' ? { error: failure instanceof DomainError ? failure.message : 'internal server error' } : {}),
    };
    this.countTokens(outcome.model, modelEnd?.usage ?? null);
    return this.finish(finished(this.reply, this.text, outcome), failure);
  }

  /** A piece of text came: its listeners are told, and (`write`) it is written at the next flush. */
  private grow(piece: string, write: boolean): void {
    if (piece === '') return;
    this.text += piece;
    this.recent.push(piece);
    this.length += replyLength(piece);
    this.changes.notify();
    if (write) this.writes.soon(this);
    if (this.recent.length === 1 && this.firstRecent === 0) this.firstWords?.();
  }

  /** Counted before the end is stored: whoever sees the end (a `done` event) can see its tokens in the usage. */
  private countTokens(model: string, counted: TokenUsage | null): void {
    if (!this.tokens) return;
    // A reply that wrote nothing and got no count (stopped at once, the model unreachable) costs nothing.
    const usage = counted ?? (this.text === '' ? null : (this.tokens.estimate?.(this.text) ?? writtenOnly(this.text)));
    if (usage) this.tokens.recorder.countTokens(this.reply.userId, model, usage);
  }

  private async finish(final: Message, failure: unknown): Promise<ReplyEnd> {
    const writing = this.writes.remove(this);
    if (writing) await writing;
    let end: ReplyEnd;
    // A reply that answered (not one that failed) names a conversation that has no name yet.
    const name = this.naming && final.text !== '' && failure === undefined ? await this.nameOf(this.naming) : undefined;
    try {
      const { message: ending, named: taken } = await this.storeEnd(final, name);
      const stored = ending && final.finishReason !== 'interrupted' && isMoreOfInterrupted(ending, final.text) ? await this.extended(ending, final) : ending;
      // The name its streams announce is the one the conversation took: none when its user named it meanwhile.
      const named = taken && stored?.status === 'completed' ? name : undefined;
      if (named) {
        this.title = { conversationId: final.conversationId, ...named };
        if (named.source === 'first_message') void this.naming?.propose?.().then((title) => (title ? this.naming?.late?.(title) : undefined)).catch(() => undefined);
      }
      // Deleted while it was written (deleteMessages): its streams end with the text they were sent, not with nothing.
      const ended = stored ?? (final.text !== '' ? final : null);
      end = { message: ended, finishReason: ended?.finishReason ?? final.finishReason!, ...(failure !== undefined ? { failure } : {}) };
    } catch (storing) {
      end = { message: null, finishReason: 'error', failure: failure ?? storing };
    }
    this.end = end;
    this.changes.notify();
    return end;
  }

  /**
   * The one write that must not be lost: the whole reply is here, so a database away for a
   * moment (a full pool under load, a fail-over) is waited out for a few seconds, with back-off,
   * before the reply is given up (it is then swept up as interrupted, with its last stored text).
   */
  private async storeEnd(final: Message, name?: ConversationName): Promise<{ message: Message | null; named: boolean }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const at = this.clock.now();
        return await this.store.run(async (r) => (name ? r.replies.finishAndName(final, at, name) : { message: await r.replies.finish(final, at), named: false }), { atomic: false });
      } catch (storing) {
        if (!(storing instanceof DependencyUnavailableError) || attempt >= FINISH_ATTEMPTS) throw storing;
        await new Promise((resolve) => setTimeout(resolve, this.settings.writeIntervalMs * 2 ** attempt));
      }
    }
  }

  /**
   * An end another instance stored meanwhile as interrupted, with less text than this job has
   * (the database out of this instance's reach for longer than the stale bound), given this job's
   * whole text: what this reply's streams were sent is kept, not cut back.
   */
  private extended(stored: Message, final: Message): Promise<Message | null> {
    return this.store.run((r) => r.replies.extendInterrupted(stored.messageId, final.text), { atomic: false }).catch(() => stored);
  }

  private async nameOf(naming: Naming): Promise<ConversationName> {
    const proposed = await settled(naming.propose?.());
    return proposed ? { title: proposed, source: 'generated' } : { title: naming.fallback, source: 'first_message' };
  }

  /** Whether text came that no write has taken yet. */
  get behind(): boolean {
    return this.written < this.text.length;
  }

  /** The text not yet stored, for a write (reply-writes.ts); the pieces kept for listeners start again after it. */
  takeUnwritten(): { from: number; text: string } {
    this.firstRecent += this.recent.length;
    this.recent = [];
    return { from: this.writtenPoints, text: this.text.slice(this.written) };
  }

  /** A write stored `length` more of the text; `stillRunning` false: someone else finished the row (a stop from an instance that could not reach us, or the stale sweep). */
  wrote(text: string, stillRunning: boolean): void {
    this.written += text.length;
    this.writtenPoints += replyLength(text);
    if (!stillRunning) this.stop('cancelled');
  }
}

/** Without an estimate of what the model was sent: the tokens of what it wrote. */
function writtenOnly(text: string): TokenUsage {
  const completionTokens = estimateTokens(text);
  return { promptTokens: 0, completionTokens, totalTokens: completionTokens };
}

/** The model's proposal when it is there now, else the fallback. */
async function settled(proposal: Promise<string | null> | undefined): Promise<string | null> {
  if (!proposal) return null;
  return Promise.race([proposal.catch(() => null), new Promise<null>((resolve) => setImmediate(() => resolve(null)))]);
}

function modelOf(reply: Message): string {
  return typeof reply.metadata.model === 'string' ? reply.metadata.model : 'unknown';
}
