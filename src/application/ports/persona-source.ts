import type { Persona } from '../../domain/persona.js';

export interface PersonaSource {
  persona(): Persona;
}
