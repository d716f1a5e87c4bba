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
