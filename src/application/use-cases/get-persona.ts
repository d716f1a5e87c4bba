import type { Persona } from '../../domain/persona.js';
import type { PersonaSource } from '../ports/persona-source.js';

/** GET /api/ai/traits. */
export class GetPersona {
  constructor(private readonly source: PersonaSource) {}

  execute(): Persona {
    return this.source.persona();
  }
}
