import { FieldInvalidError } from '../../domain/errors.js';
import type { PersonaSource } from '../ports/persona-source.js';
import type { SpeechSynthesizer, Voice } from '../ports/speech-synthesizer.js';

export const VOICE_RULE = 'must be one of the voices listed by GET /api/tts/voices';

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

  /** The canonical id of a voice a client asked for; 400 when the engine has no such voice. */
  async require(id: string): Promise<string> {
    const voice = await this.synthesizer.findVoice(id);
    if (!voice) throw new FieldInvalidError('voice', VOICE_RULE);
    return voice.id;
  }
}
