/** The assistant's personality, scored on the five-factor model (each 0..1). */
export interface PersonaTraits {
  openness: number;
  conscientiousness: number;
  extraversion: number;
  agreeableness: number;
  neuroticism: number;
}

export interface Persona {
  name: string;
  description: string;
  traits: PersonaTraits;
  descriptors: string[];
  speakingStyle: string;
  /** Default speech voice for the assistant, when the persona names one. */
  voice: string | null;
}

const TRAIT_ORDER: (keyof PersonaTraits)[] = ['openness', 'conscientiousness', 'extraversion', 'agreeableness', 'neuroticism'];

/** Words read more reliably to a language model than bare scores. */
function level(score: number): string {
  if (score >= 0.8) return 'very high';
  if (score >= 0.6) return 'high';
  if (score > 0.4) return 'moderate';
  if (score > 0.2) return 'low';
  return 'very low';
}

const sentence = (text: string): string => {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?]$/u.test(trimmed) ? trimmed : `${trimmed}.`;
};

/**
 * The system message that puts a language model in the persona's character: who it is, its
 * five-factor profile, the words that describe it and how it speaks. Pure, so it is tested
 * once and every model adapter sends the same prompt.
 */
export function systemPromptFor(persona: Persona, instructions?: string): string {
  const traits = TRAIT_ORDER.map((trait) => `${trait} ${level(persona.traits[trait])} (${persona.traits[trait]})`).join(', ');
  const lines = [
    `You are ${persona.name}, a conversational assistant. ${sentence(persona.description)}`,
    `Your personality on the five-factor model (scores from 0 to 1): ${traits}.`,
  ];
  if (persona.descriptors.length > 0) lines.push(`You are ${persona.descriptors.join(', ')}.`);
  if (persona.speakingStyle.trim() !== '') lines.push(`Speaking style: ${sentence(persona.speakingStyle)}`);
  lines.push(
    `Stay in character as ${persona.name}. Reply in the language the user writes in, in plain text, ` +
      'and say so when you do not know something rather than inventing an answer.',
  );
  // A request's own instructions (OpenAI's `instructions`) come last, for that request only.
  if (instructions !== undefined && instructions.trim() !== '') lines.push('', instructions.trim());
  return lines.join('\n');
}
