import { VoiceNotFoundError } from '../../domain/errors.js';
import { scriptVoiceOf } from '../../domain/speech.js';
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

  /**
   * The canonical id of the voice asked for; VoiceNotFoundError when the engine has no such voice.
   * None asked for: the default one, unless `text` is mostly in a script it does not read (Chinese
   * for an English voice) and the engine has a voice of that script's (scriptVoiceOf).
   */
  async choose(id: string | undefined, text?: string): Promise<string> {
    if (id === undefined) {
      const fallback = await this.defaultVoice();
      const scripted = text === undefined ? null : scriptVoiceOf(text);
      if (scripted === null || languageOf(fallback) === scripted) return fallback;
      return (await this.synthesizer.findVoice(scripted))?.id ?? fallback;
    }
    const voice = await this.synthesizer.findVoice(id);
    if (!voice) throw new VoiceNotFoundError(id);
    return voice.id;
  }
}

/** A voice id's language: `ru` of `ru`, `cmn` of `cmn-latn-pinyin`, `en` of `en-us`. */
const languageOf = (voiceId: string) => voiceId.toLowerCase().split(/[-_]/)[0];
