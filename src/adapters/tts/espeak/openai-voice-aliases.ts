/**
 * OpenAI's voice names, each mapped to an eSpeak NG voice of a like kind (accent, and a
 * lower or higher pitch), so that clients written for OpenAI's speech API work unchanged.
 * eSpeak NG's variants m1..m8 and f1..f5 differ in pitch and timbre; m8 is the deepest.
 */
export const OPENAI_VOICE_ALIASES: Readonly<Record<string, string>> = {
  alloy: 'en-us', // neutral: eSpeak NG's own American English
  ash: 'en-us+m1',
  ballad: 'en-gb+m2',
  cedar: 'en-us+m4',
  coral: 'en-us+f3',
  echo: 'en-us+m3',
  fable: 'en-gb', // British, as OpenAI's fable
  marin: 'en-us+f4',
  nova: 'en-us+f2',
  onyx: 'en-us+m8', // deep
  sage: 'en-us+f1',
  shimmer: 'en-us+f5',
  verse: 'en-us+m6',
};
