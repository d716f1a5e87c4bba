import { expect } from 'chai';
import { scriptVoiceOf } from '../../src/domain/speech.js';

describe('the voice for a text in a script the default voice does not read', () => {
  for (const [text, voice] of [
    ['你好，世界。今天天气很好。', 'cmn'],
    ['こんにちは、元気ですか。日本語です。', 'ja'],
    ['안녕하세요 오늘 날씨가 좋네요', 'ko'],
    ['مرحبا بالعالم كيف حالك اليوم', 'ar'],
    ['שלום עולם, מה שלומך היום', 'he'],
    ['Γειά σου κόσμε, τι κάνεις σήμερα;', 'el'],
    ['Привет, как дела? Сегодня хорошая погода.', 'ru'],
    ['नमस्ते दुनिया, आप कैसे हैं', 'hi'],
    ['The word 你好 means hello', null],
    ['Hello there, how are you today?', null],
    ['12345 😀 !?', null],
  ] as const) {
    it(`${JSON.stringify(text)}: ${voice ?? 'the default'}`, () => {
      expect(scriptVoiceOf(text)).to.equal(voice);
    });
  }
});
