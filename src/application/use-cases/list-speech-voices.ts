import type { SpeechVoices, VoiceList } from '../services/speech-voices.js';

/** GET /api/tts/voices. */
export class ListSpeechVoices {
  constructor(private readonly voices: SpeechVoices) {}

  execute(): Promise<VoiceList> {
    return this.voices.list();
  }
}
