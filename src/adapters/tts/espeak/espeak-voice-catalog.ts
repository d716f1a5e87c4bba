import type { Voice } from '../../../application/ports/speech-synthesizer.js';
import { OPENAI_VOICE_ALIASES } from './openai-voice-aliases.js';

/** A voice, and how to ask espeak-ng for it (`-v`). */
export interface EspeakVoice extends Voice {
  espeakName: string;
}

interface Listed {
  id: string;
  name: string;
  language: string;
  /** The voice file, relative to espeak-ng-data/voices (may hold spaces). */
  file: string;
}

// " 5  en-us  --/M  English_(America)  gmw/en-US  (en 3)": the file name may hold spaces.
const LINE = /^\s*\d+\s+(\S+)\s+\S+\s+(\S+)\s+(.+?)\s*((?:\(\S+ \d+\))*)\s*$/;
/** Variants that need the Klatt synthesizer, which this build of espeak-ng leaves out. */
const UNSUPPORTED_VARIANT = /^klatt/;

const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1);
const display = (name: string) => name.replace(/_/g, ' ');

function parse(lines: string[]): Listed[] {
  return lines.flatMap((line) => {
    const match = LINE.exec(line);
    if (!match || line.trimStart().startsWith('Pty')) return [];
    const [, language, name, file] = match as unknown as [string, string, string, string];
    return [{ id: language.toLowerCase(), name: display(name), language: language.toLowerCase(), file }];
  });
}

/**
 * eSpeak NG's voices, from `espeak-ng --voices` and `--voices=variant`. A voice id is a
 * language (`en-us`), or a language and a variant (`en-us+f3`); any listed variant combines
 * with any language, while the listing shows the variants of the default voice's language
 * only (all combinations would be some 12,000 entries).
 */
export class EspeakVoiceCatalog {
  private readonly languages = new Map<string, Listed>();
  private readonly variants = new Map<string, Listed>();

  constructor(languageListing: string[], variantListing: string[]) {
    for (const voice of parse(languageListing)) {
      // Two voices may share a language (Cantonese): the second goes by its file's name.
      const id = this.languages.has(voice.id) ? baseName(voice.file).toLowerCase() : voice.id;
      if (!this.languages.has(id)) this.languages.set(id, { ...voice, id });
    }
    for (const variant of parse(variantListing)) {
      const id = baseName(variant.file).toLowerCase().replace(/\s+/g, '-');
      if (!UNSUPPORTED_VARIANT.test(id) && !this.variants.has(id)) this.variants.set(id, { ...variant, id });
    }
  }

  get size(): number {
    return this.languages.size;
  }

  /** The voice with this id (any case), or with this OpenAI voice name (see OPENAI_VOICE_ALIASES), or null. */
  find(id: string): EspeakVoice | null {
    const wanted = id.trim().toLowerCase();
    const [languageId, variantId, ...rest] = (Object.hasOwn(OPENAI_VOICE_ALIASES, wanted) ? OPENAI_VOICE_ALIASES[wanted]! : wanted).split('+');
    const language = this.languages.get(languageId ?? '');
    if (!language || rest.length > 0) return null;
    const voice = { id: language.id, name: language.name, language: language.language, espeakName: language.file };
    if (variantId === undefined) return voice;
    const variant = this.variants.get(variantId);
    if (!variant) return null;
    return {
      id: `${voice.id}+${variant.id}`,
      name: `${voice.name}, ${variant.name}`,
      language: voice.language,
      espeakName: `${voice.espeakName}+${baseName(variant.file)}`,
    };
  }

  /** Every language, then every variant of the default voice's language. */
  listing(defaultVoice: string): Voice[] {
    const plain = (voice: EspeakVoice): Voice => ({ id: voice.id, name: voice.name, language: voice.language });
    const base = this.find(defaultVoice.split('+')[0] ?? '');
    const languages = [...this.languages.keys()].map((id) => plain(this.find(id)!));
    const variants = base ? [...this.variants.keys()].map((id) => plain(this.find(`${base.id}+${id}`)!)) : [];
    return [...languages, ...variants];
  }
}
