import { createHash } from 'node:crypto';
import type { SpeechCache, SpeechOwner } from '../ports/speech-cache.js';
import type { AudioFormat, SpeechRequest, SpeechSynthesizer } from '../ports/speech-synthesizer.js';
import { SpeechBroadcast } from './speech-broadcast.js';

/** Audio ready to send: a finished file, or one still being made, as a stream of bytes. */
export type SpeechOutput = { kind: 'whole'; audio: Uint8Array } | { kind: 'stream'; bytes: AsyncIterable<Uint8Array> };

/**
 * Audio for a request: from the cache, else made by the engine, once. Identical requests in
 * flight share one synthesis (a late one gets the bytes made so far, then the rest); the
 * finished file goes to the cache. Limits on how many syntheses run, and for how long, are
 * the engine's (its adapter is wrapped in them), so that a cached answer never waits.
 */
export class SpeechAudio {
  private readonly inFlight = new Map<string, SpeechBroadcast>();

  constructor(
    private readonly synthesizer: SpeechSynthesizer,
    private readonly cache: SpeechCache,
  ) {}

  /** The formats the engine can make. */
  get formats(): readonly AudioFormat[] {
    return this.synthesizer.formats;
  }

  /** Names the audio a request gives: the same for the same engine, voice, format, speed and text. */
  keyOf(request: SpeechRequest): string {
    const identity = [this.synthesizer.engine, request.voice, request.format, request.speed, request.text];
    return createHash('sha256').update(JSON.stringify(identity)).digest('base64url');
  }

  /**
   * The audio once its first bytes exist. A synthesis that is finished by then (a cached one,
   * or a text short enough to be spoken in one go) comes whole; a longer one as a stream.
   * Rejects if the synthesis fails before its first bytes; a stream throws if it fails later.
   */
  async open(request: SpeechRequest, key: string = this.keyOf(request), owner?: SpeechOwner): Promise<SpeechOutput> {
    const cached = await this.cache.get(key);
    if (cached) return { kind: 'whole', audio: cached };
    const broadcast = this.broadcastOf(request, key, owner);
    await broadcast.started();
    // Let an engine that has nothing left to wait for finish its file (its last pieces are already computed).
    if (!broadcast.done) await new Promise((resolve) => setImmediate(resolve));
    // Finished, or failed before anything was sent: either way the whole outcome is known.
    if (broadcast.done || broadcast.failed) return { kind: 'whole', audio: await broadcast.whole() };
    return { kind: 'stream', bytes: broadcast.bytes() };
  }

  /** The finished file. */
  /** `owner`: whose stored text it speaks, so that erasing them forgets the audio too. */
  async audioFor(request: SpeechRequest, owner?: SpeechOwner, key: string = this.keyOf(request)): Promise<Uint8Array> {
    return (await this.cache.get(key)) ?? this.broadcastOf(request, key, owner).whole();
  }

  private broadcastOf(request: SpeechRequest, key: string, owner?: SpeechOwner): SpeechBroadcast {
    const existing = this.inFlight.get(key);
    if (existing) return existing;
    const broadcast = new SpeechBroadcast(this.synthesizer.synthesize(request));
    this.inFlight.set(key, broadcast);
    const forget = () => this.inFlight.delete(key);
    broadcast
      .whole()
      .then((audio) => this.cache.set(key, audio, owner))
      .then(forget, forget);
    return broadcast;
  }
}
