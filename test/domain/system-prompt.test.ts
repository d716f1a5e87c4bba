import { expect } from 'chai';
import { systemPromptFor } from '../../src/domain/persona.js';
import type { Persona } from '../../src/domain/persona.js';
import { aPersona } from '../support/builders.js';

const persona: Persona = aPersona({
  name: 'Aria',
  description: 'A friendly, curious assistant',
  traits: { openness: 0.85, conscientiousness: 0.75, extraversion: 0.5, agreeableness: 0.3, neuroticism: 0.1 },
  descriptors: ['curious', 'warm'],
  speakingStyle: 'Short sentences, one idea at a time.',
});

describe('systemPromptFor', () => {
  it('names the persona and carries its description, traits, descriptors and style', () => {
    expect(systemPromptFor(persona)).to.equal(
      [
        'You are Aria, a conversational assistant. A friendly, curious assistant.',
        'Your personality on the five-factor model (scores from 0 to 1): openness very high (0.85), conscientiousness high (0.75), ' +
          'extraversion moderate (0.5), agreeableness low (0.3), neuroticism very low (0.1).',
        'You are curious, warm.',
        'Speaking style: Short sentences, one idea at a time.',
        'Stay in character as Aria. Reply in the language the user writes in, in plain text, and say so when you do not know something rather than inventing an answer.',
      ].join('\n'),
    );
  });

  it('leaves out what the persona does not say', () => {
    const prompt = systemPromptFor({ ...persona, descriptors: [], speakingStyle: ' ' });
    expect(prompt).to.not.include('Speaking style');
    expect(prompt.split('\n')).to.have.length(3);
  });
});
