import { v7 as uuidv7 } from 'uuid';
import type { IdGenerator } from '../../application/ports/id-generator.js';

/** Time-ordered UUIDs (RFC 9562 version 7), monotonic within the process. */
export class UuidV7IdGenerator implements IdGenerator {
  newId(): string {
    return uuidv7();
  }
}
