import { expect } from 'chai';
import { EspeakVoiceCatalog } from '../../../src/adapters/tts/espeak/espeak-voice-catalog.js';
import { wordsPerMinute } from '../../../src/adapters/tts/espeak/espeak-speech-synthesizer.js';

// Lines as `espeak-ng --voices` and `--voices=variant` print them.
const LANGUAGES = [
  'Pty Language       Age/Gender VoiceName          File                 Other Languages',
  ' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)',
  ' 5  fr-fr           --/M      French_(France)    roa/fr               (fr 5)',
  ' 5  cmn             --/M      Chinese_(Mandarin,_latin_as_English) sit/cmn              (zh-cmn 5)(zh 5)',
  ' 5  yue             --/M      Chinese_(Cantonese) sit/yue              (zh-yue 5)(zh 8)',
  ' 5  yue             --/M      Chinese_(Cantonese,_latin_as_Jyutping) sit/yue-Latn-jyutping (zh-yue 5)(zh 8)',
];
const VARIANTS = [
  'Pty Language       Age/Gender VoiceName          File                 Other Languages',
  ' 5  variant         --/F      female3            !v/f3                ',
  ' 5  variant         --/M      Mr_Serious         !v/Mr serious        ',
  ' 5  variant         --/M      Half-LifeAnnouncementSystem !v/announcer         ',
  ' 5  variant         --/M      klatt              !v/klatt             ',
];

describe('eSpeak NG voice catalog', () => {
  const catalog = new EspeakVoiceCatalog(LANGUAGES, VARIANTS);

  it('names languages by their code, a second voice of the same language by its file', () => {
    expect(catalog.find('en-us')).to.deep.equal({ id: 'en-us', name: 'English (America)', language: 'en-us', espeakName: 'gmw/en-US' });
    expect(catalog.find('cmn')?.name).to.equal('Chinese (Mandarin, latin as English)');
    expect(catalog.find('yue')?.espeakName).to.equal('sit/yue');
    expect(catalog.find('yue-latn-jyutping')).to.deep.equal({
      id: 'yue-latn-jyutping',
      name: 'Chinese (Cantonese, latin as Jyutping)',
      language: 'yue',
      espeakName: 'sit/yue-Latn-jyutping',
    });
  });

  it('combines any language with any variant, case-insensitively, file names with spaces included', () => {
    expect(catalog.find('FR-FR+F3')).to.deep.equal({ id: 'fr-fr+f3', name: 'French (France), female3', language: 'fr-fr', espeakName: 'roa/fr+f3' });
    expect(catalog.find('en-us+mr-serious')?.espeakName).to.equal('gmw/en-US+Mr serious');
  });

  it('knows no unknown language or variant, nor the Klatt variants this build lacks', () => {
    for (const id of ['xx', 'en-us+nope', 'en-us+klatt', 'en-us+f3+f3', '', '+f3']) expect(catalog.find(id), id).to.equal(null);
  });

  it('lists every language, then the variants of the default voice\'s language', () => {
    expect(catalog.listing('fr-fr+f3').map((v) => v.id)).to.deep.equal([
      'en-us', 'fr-fr', 'cmn', 'yue', 'yue-latn-jyutping', 'fr-fr+f3', 'fr-fr+mr-serious', 'fr-fr+announcer',
    ]);
  });

  it('maps speed 0.5..2.0 to 88..350 words per minute, 175 at 1.0, within espeak\'s 80..450', () => {
    expect([0.5, 1, 1.5, 2].map(wordsPerMinute)).to.deep.equal([88, 175, 263, 350]);
    expect([0.1, 5].map(wordsPerMinute)).to.deep.equal([80, 450]);
  });
});
