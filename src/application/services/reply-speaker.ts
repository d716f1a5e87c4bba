import { SentenceSplitter } from '../../domain/sentences.js';
import type { AudioFormat } from '../../domain/speech.js';
import type { SpeechRequest } from '../ports/speech-synthesizer.js';

/** One finished sentence of a reply, spoken: a complete audio file. */
export interface SpokenSentence {
  /** 0, 1, 2... in the order of the reply. */
  index: number;
  /** The sentence as it is in the reply (with the whitespace after it): all of them concatenate to the reply. */
  text: string;
  format: AudioFormat;
  audio: Uint8Array;
}

/** Makes the audio of one sentence (a whole file), as SpeechAudio.audioFor does. */
export type SpeakSentence = (request: SpeechRequest, signal: AbortSignal) => Promise<Uint8Array>;

/**
 * Speaks a reply while it is being written. Fed the reply's pieces as they come (`push`) and
 * told when it is complete (`end`), it yields, in order, one SpokenSentence per finished
 * sentence: a sentence is spoken as soon as the next one begins, the last one at the end.
 * Sentences are spoken one after another, so a reply never holds more than one synthesis.
 * A synthesis that fails ends the iteration with its error; `stop` ends it quietly.
 */
export class ReplySpeaker implements AsyncIterable<SpokenSentence> {
  private readonly splitter = new SentenceSplitter();
  private readonly stopping = new AbortController();
  private readonly ready: SpokenSentence[] = [];
  /** Sentences handed to synthesis, and those whose audio is ready (or was given). */
  private queued = 0;
  private produced = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private chain: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;

  constructor(
    private readonly speak: SpeakSentence,
    private readonly voice: { voice: string; format: AudioFormat; speed: number },
  ) {}

  /** More of the reply. */
  push(delta: string): void {
    if (this.ended) return;
    for (const sentence of this.splitter.push(delta)) this.enqueue(sentence);
  }

  /** The reply is complete: what is left is its last sentence. */
  end(): void {
    if (this.ended) return;
    for (const sentence of this.splitter.end()) this.enqueue(sentence);
    this.ended = true;
    this.notify();
  }

  /** No more audio is wanted: a synthesis under way is abandoned and the iteration ends. */
  stop(): void {
    this.ended = true;
    this.ready.length = 0;
    this.queued = this.produced;
    this.stopping.abort(new Error('the reply is no longer spoken'));
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SpokenSentence> {
    for (;;) {
      const next = this.ready.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.ended && this.produced >= this.queued) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private enqueue(text: string): void {
    const index = this.queued++;
    const { voice, format, speed } = this.voice;
    this.chain = this.chain.then(async () => {
      if (this.failure || this.stopping.signal.aborted) return;
      try {
        const audio = await this.speak({ text, voice, format, speed }, this.stopping.signal);
        if (this.stopping.signal.aborted) return;
        this.ready.push({ index, text, format, audio });
        this.produced++;
      } catch (error) {
        if (!this.stopping.signal.aborted) this.failure = { error };
      }
      this.notify();
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
