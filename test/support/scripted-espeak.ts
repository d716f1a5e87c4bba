import type { Mp3Encoder } from '../../src/adapters/tts/audio/mp3-encoder.js';
import type { EspeakRunner, EspeakUtterance } from '../../src/adapters/tts/espeak/espeak-runner.js';
import { makeWav } from './audio.js';

// Lines as `espeak-ng --voices` and `--voices=variant` print them.
const LANGUAGES = [
  'Pty Language       Age/Gender VoiceName          File                 Other Languages',
  ' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)',
  ' 5  fr-fr           --/M      French_(France)    roa/fr               (fr 5)',
];
const VARIANTS = [
  'Pty Language       Age/Gender VoiceName          File                 Other Languages',
  ' 5  variant         --/F      female3            !v/f3                ',
];

/**
 * eSpeak NG and LAME stand-ins for testing the synthesizer's order of work: speech is a tone
 * as long as the text needs, MP3 is a few bytes; every step lands in `events` ("speak 1 asked",
 * "speak 1 done", "encode 0"), the number being the part's order. `holdFrom(n)` keeps the
 * speech of parts n and later from finishing until `release()`; `warmUp` and the voice listing can be held too.
 */
export class ScriptedEspeak implements EspeakRunner, Mp3Encoder {
  readonly name = 'scripted';
  readonly events: string[] = [];
  readonly spoken: string[] = [];
  listings = 0;
  warmUps = 0;
  /** When set, warmUp waits for it. */
  warmUpGate: Promise<void> | undefined;
  warmUpFailure: Error | undefined;
  /** When set, listing the voices waits for it. */
  listingGate: Promise<void> | undefined;
  private heldFrom = Infinity;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => {};

  holdFrom(order: number): void {
    this.heldFrom = order;
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.heldFrom = Infinity;
    this.open();
  }

  async speak({ text }: EspeakUtterance, signal?: AbortSignal, order = 0): Promise<Uint8Array> {
    this.events.push(`speak ${order} asked`);
    this.spoken[order] = text;
    if (order >= this.heldFrom) await this.gate;
    signal?.throwIfAborted();
    this.events.push(`speak ${order} done`);
    return makeWav([...text].length * 0.06, 22_050);
  }

  async listVoices(which: 'languages' | 'variants'): Promise<string[]> {
    this.listings++;
    await this.listingGate;
    return which === 'languages' ? LANGUAGES : VARIANTS;
  }

  async encode(samples: Int16Array, _sampleRate: number, _signal?: AbortSignal, order = 0): Promise<Uint8Array> {
    this.events.push(`encode ${order}`);
    return new Uint8Array([0xff, 0xfb, 0x90, 0x64, samples.length & 0xff]);
  }

  async warmUp(): Promise<void> {
    this.warmUps++;
    await this.warmUpGate;
    if (this.warmUpFailure) throw this.warmUpFailure;
  }
}
