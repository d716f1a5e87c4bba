/** Makes the ids the server assigns: time-ordered and unguessable, or derived from a name. */
export interface IdGenerator {
  newId(): string;
  /** The same id for the same name, always and everywhere (an import's ids: docs/import-export.md). */
  derivedId(name: string): string;
}
