import { AudioFormatUnsupportedError, FieldInvalidError, MessageNotFoundError, ReplyInProgressError } from '../../domain/errors.js';
import { isSpeechSpeed, SPEECH_SPEED, SPEECH_TEXT_LIMIT, type AudioFormat } from '../../domain/speech.js';
import { atMostCodePoints, codePointLength } from '../../domain/text.js';
import type { SpeechOwner } from '../ports/speech-cache.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { SpeechAudio, SpeechOutput } from '../services/speech-audio.js';
import type { SpeechVoices } from '../services/speech-voices.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';

/** Exactly one of `text` and `messageId`; a message is read only for its owner, `userId` (whom the speech is counted for: none when absent). */
export interface SynthesizeSpeechInput {
  text?: string;
  messageId?: string;
  userId?: string;
  voice?: string;
  /** Any format's name: one the speech engine cannot make is an AudioFormatUnsupportedError naming those it can. */
  format: string;
  speed: number;
}

export interface PreparedSpeech {
  /** Strong validator of the finished audio: a hash of engine, voice, format, speed and text. */
  etag: string;
  format: AudioFormat;
  /** What was spoken: the request's text, or a stored message. */
  source: 'text' | 'message';
  /** The audio, from the cache or the engine, once its first bytes exist; only called when the client needs it. */
  open(): Promise<SpeechOutput>;
}

/**
 * GET and POST /api/tts, and POST /v1/audio/speech. Everything is checked (voice, text, the
 * stored message and its owner) before any audio is made, so a client that already holds this
 * audio (its ETag) costs no synthesis.
 */
export class SynthesizeSpeech {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly voices: SpeechVoices,
    private readonly speech: SpeechAudio,
    private readonly usage?: UsageRecorder,
  ) {}

  async execute(input: SynthesizeSpeechInput): Promise<PreparedSpeech> {
    if (!isSpeechSpeed(input.speed)) {
      throw new FieldInvalidError('speed', `must be a number from ${SPEECH_SPEED.min} to ${SPEECH_SPEED.max.toFixed(1)}`);
    }
    const format = this.speech.formats.find((made) => made === input.format);
    if (format === undefined) throw new AudioFormatUnsupportedError(input.format, this.speech.formats);
    const { text, owner } = await this.textOf(input);
    const voice = await this.voices.choose(input.voice, text);
    const request = { text, voice, format, speed: input.speed };
    const key = this.speech.keyOf(request);
    return {
      etag: `"${key}"`,
      format,
      source: input.messageId === undefined ? 'text' : 'message',
      open: async () => {
        const output = await this.speech.open(request, key, owner);
        // Counted once the audio exists (from the cache or the engine): what the client is answered.
        this.usage?.countSpeech(input.userId, codePointLength(text));
        return output;
      },
    };
  }

  /** The text to speak, and whose it is when it is a stored message's. */
  private async textOf({ text, messageId, userId }: SynthesizeSpeechInput): Promise<{ text: string; owner?: SpeechOwner }> {
    if ((text === undefined) === (messageId === undefined)) {
      throw new FieldInvalidError('text', 'give either text or message_id, not both and not neither');
    }
    if (text !== undefined) {
      if (text.trim() === '') throw new FieldInvalidError('text', 'must be a non-empty string');
      if (!atMostCodePoints(text, SPEECH_TEXT_LIMIT)) {
        throw new FieldInvalidError('text', `must be at most ${SPEECH_TEXT_LIMIT} characters`);
      }
      return { text };
    }
    if (userId === undefined) throw new FieldInvalidError('user_id', 'is required with message_id');
    const message = await this.unitOfWork.run((repositories) => repositories.messages.findById(messageId!), { atomic: false });
    // Another user's message is as unknown as one never stored: ids must not be probed.
    if (!message || message.userId !== userId) throw new MessageNotFoundError(messageId!);
    if (message.status === 'in_progress') throw new ReplyInProgressError('the reply is still being written');
    if (!atMostCodePoints(message.text, SPEECH_TEXT_LIMIT)) {
      throw new FieldInvalidError(
        'message_id',
        `the message is ${codePointLength(message.text)} characters long; at most ${SPEECH_TEXT_LIMIT} can be spoken at once`,
      );
    }
    return { text: message.text, owner: { userId: message.userId, conversationId: message.conversationId } };
  }
}
