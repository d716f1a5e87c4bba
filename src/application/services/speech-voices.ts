import { VoiceNotFoundError } from '../../domain/errors.js';
import type { PersonaSource } from '../ports/persona-source.js';
import type { SpeechSynthesizer, Voice } from '../ports/speech-synthesizer.js';

export interface VoiceList {
  defaultVoice: string;
  voices: Voice[];
}

/**
 * Which voices may be asked for, and which one speaks when none is: the persona's `voice`
 * when the engine knows it, else the engine's default (TTS_VOICE, else its built-in one).
 */
export class SpeechVoices {
  constructor(
    private readonly synthesizer: SpeechSynthesizer,
    private readonly personas: PersonaSource,
  ) {}

  async list(): Promise<VoiceList> {
    const [defaultVoice, voices] = await Promise.all([this.defaultVoice(), this.synthesizer.voices()]);
    return { defaultVoice, voices };
  }

  async defaultVoice(): Promise<string> {
    const personaVoice = this.personas.persona().voice;
    const chosen = personaVoice === null ? null : await this.synthesizer.findVoice(personaVoice);
    if (chosen) return chosen.id;
    const engineDefault = this.synthesizer.defaultVoice();
    return (await this.synthesizer.findVoice(engineDefault))?.id ?? engineDefault;
  }

  /** The canonical id of the voice asked for, or the default one when none is; VoiceNotFoundError when the engine has no such voice. */
  async choose(id: string | undefined): Promise<string> {
    if (id === undefined) return this.defaultVoice();
    const voice = await this.synthesizer.findVoice(id);
    if (!voice) throw new VoiceNotFoundError(id);
    return voice.id;
  }
}
