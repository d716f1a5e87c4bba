import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { PersonaSource } from '../../application/ports/persona-source.js';
import type { Persona } from '../../domain/persona.js';

// Imported rather than read from disk, so the default ships inside the service wherever it runs from.
import DEFAULT_PERSONA from './default-persona.json' with { type: 'json' };

const DEFAULT_PERSONA_NAME = 'the default persona (src/adapters/persona/default-persona.json)';

const SCORE = 'must be a number from 0 to 1';
const score = z.number({ error: SCORE }).min(0, SCORE).max(1, SCORE);
const personaFileSchema = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().min(1).max(2000),
  traits: z.object({
    openness: score,
    conscientiousness: score,
    extraversion: score,
    agreeableness: score,
    neuroticism: score,
  }),
  descriptors: z.array(z.string().trim().min(1).max(100)).max(50),
  speaking_style: z.string().trim().min(1).max(2000),
  voice: z.string().min(1).max(128).nullable().optional(),
});

export class PersonaFileInvalidError extends Error {
  override readonly name = 'PersonaFileInvalidError';
  constructor(path: string, reason: string) {
    super(`persona file ${path} is invalid: ${reason}`);
  }
}

/** The persona from a JSON file (PERSONA_FILE), or the default one, validated once, at start-up. */
export class JsonFilePersonaSource implements PersonaSource {
  private readonly value: Persona;

  constructor(path?: string) {
    const raw = path === undefined ? DEFAULT_PERSONA : readPersonaFile(path);
    const parsed = personaFileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new PersonaFileInvalidError(path ?? DEFAULT_PERSONA_NAME, `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const { speaking_style, voice, ...rest } = parsed.data;
    this.value = Object.freeze({ ...rest, speakingStyle: speaking_style, voice: voice ?? null });
  }

  persona(): Persona {
    return this.value;
  }
}

function readPersonaFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PersonaFileInvalidError(path, error instanceof Error ? error.message : String(error));
  }
}
