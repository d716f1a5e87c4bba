import { AudioFormatUnsupportedError } from '../../domain/errors.js';
import type { AudioFormat } from '../../domain/speech.js';
import { ReplySpeaker } from '../services/reply-speaker.js';
import type { SpeechOwner } from '../ports/speech-cache.js';
import type { SpeechAudio } from '../services/speech-audio.js';
import type { SpeechVoices } from '../services/speech-voices.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import { codePointLength } from '../../domain/text.js';

export interface SpeakReplyInput {
  voice?: string;
  format: AudioFormat;
  /** Whose reply it speaks: its audio is forgotten with them, and its characters counted for them. */
  owner?: SpeechOwner;
}

/**
 * The speech of a streamed reply (`"speech"` in POST /v1/chat/stream): the voice and format
 * are checked first, so a bad one fails the request before anything is stored; the speaker
 * returned is then fed the reply as it is written.
 */
export class SpeakReply {
  constructor(
    private readonly voices: SpeechVoices,
    private readonly speech: SpeechAudio,
    private readonly usage?: UsageRecorder,
  ) {}

  async execute(input: SpeakReplyInput): Promise<ReplySpeaker> {
    if (!this.speech.formats.includes(input.format)) throw new AudioFormatUnsupportedError(input.format, this.speech.formats);
    const voice = await this.voices.choose(input.voice);
    const speak = async (request: Parameters<SpeechAudio['audioFor']>[0]) => {
      const audio = await this.speech.audioFor(request, input.owner);
      this.usage?.countSpeech(input.owner?.userId, codePointLength(request.text));
      return audio;
    };
    return new ReplySpeaker(speak, { voice, format: input.format, speed: 1 });
  }
}
