/** Makes the ids the server assigns: time-ordered and unguessable. */
export interface IdGenerator {
  newId(): string;
}
