import { FieldInvalidError, MessageNotFoundError } from '../../domain/errors.js';
import { isSpeechSpeed, SPEECH_SPEED, SPEECH_TEXT_LIMIT, type AudioFormat } from '../../domain/speech.js';
import { codePointLength } from '../../domain/text.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { SpeechAudio } from '../services/speech-audio.js';
import type { SpeechVoices } from '../services/speech-voices.js';

/** Exactly one of `text` and `messageId`. */
export interface SynthesizeSpeechInput {
  text?: string;
  messageId?: string;
  voice?: string;
  format: AudioFormat;
  speed: number;
}

export interface PreparedSpeech {
  /** Strong validator of the audio: a hash of engine, voice, format, speed and text. */
  etag: string;
  format: AudioFormat;
  /** What was spoken: the request's text, or a stored message. */
  source: 'text' | 'message';
  /** The audio itself, from the cache or the engine; only called when the client needs it. */
  audio(): Promise<Uint8Array>;
}

/**
 * GET and POST /api/tts. Everything is checked (voice, text, the stored message) before any
 * audio is made, so a client that already holds this audio (its ETag) costs no synthesis.
 */
export class SynthesizeSpeech {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly voices: SpeechVoices,
    private readonly speech: SpeechAudio,
  ) {}

  async execute(input: SynthesizeSpeechInput): Promise<PreparedSpeech> {
    if (!isSpeechSpeed(input.speed)) {
      throw new FieldInvalidError('speed', `must be a number from ${SPEECH_SPEED.min} to ${SPEECH_SPEED.max.toFixed(1)}`);
    }
    const text = await this.textOf(input);
    const voice = input.voice === undefined ? await this.voices.defaultVoice() : await this.voices.require(input.voice);
    const request = { text, voice, format: input.format, speed: input.speed };
    const key = this.speech.keyOf(request);
    return {
      etag: `"${key}"`,
      format: input.format,
      source: input.messageId === undefined ? 'text' : 'message',
      audio: () => this.speech.audioFor(request, key),
    };
  }

  private async textOf({ text, messageId }: SynthesizeSpeechInput): Promise<string> {
    if ((text === undefined) === (messageId === undefined)) {
      throw new FieldInvalidError('text', 'give either text or message_id, not both and not neither');
    }
    if (text !== undefined) {
      if (text.trim() === '') throw new FieldInvalidError('text', 'must be a non-empty string');
      if (codePointLength(text) > SPEECH_TEXT_LIMIT) {
        throw new FieldInvalidError('text', `must be at most ${SPEECH_TEXT_LIMIT} characters`);
      }
      return text;
    }
    const message = await this.unitOfWork.run((repositories) => repositories.messages.findById(messageId!));
    if (!message) throw new MessageNotFoundError(messageId!);
    if (codePointLength(message.text) > SPEECH_TEXT_LIMIT) {
      throw new FieldInvalidError(
        'message_id',
        `the message is ${codePointLength(message.text)} characters long; at most ${SPEECH_TEXT_LIMIT} can be spoken at once`,
      );
    }
    return message.text;
  }
}
