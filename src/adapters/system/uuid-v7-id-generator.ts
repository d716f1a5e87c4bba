import { randomFillSync } from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import type { IdGenerator } from '../../application/ports/id-generator.js';

/** Random bytes drawn from the system 4 KiB at a time: one call per 256 ids, not one per id. */
const POOL_BYTES = 4096;
/** The namespace of derived ids (uuid v5 of the name): fixed, so a name gives the same id on every instance, forever. */
const NAMESPACE = '6f1c3a5e-9d2b-5c47-8e0a-1b2c3d4e5f60';

/**
 * Time-ordered UUIDs (RFC 9562 version 7), monotonic within the generator: within one
 * millisecond the 32-bit counter after the time goes up by one (the uuid package's own rule,
 * which it applies only when it draws the random bytes itself, 16 at a time). Derived ids are
 * version 5 (SHA-1 of a fixed namespace and the name).
 */
export class UuidV7IdGenerator implements IdGenerator {
  private pool = new Uint8Array(0);
  private offset = 0;
  private msecs = -Infinity;
  private seq = 0;

  newId(): string {
    const random = this.randomBytes();
    const now = Date.now();
    if (now > this.msecs) {
      // A fresh counter for a new millisecond, from the random bytes (31 bits: room to count up).
      this.msecs = now;
      this.seq = ((random[6]! << 23) | (random[7]! << 16) | (random[8]! << 8) | random[9]!) & 0x7fffffff;
    } else {
      this.seq = (this.seq + 1) | 0;
      if (this.seq === 0) this.msecs++;
    }
    return uuidv7({ random, msecs: this.msecs, seq: this.seq });
  }

  derivedId(name: string): string {
    return uuidv5(name, NAMESPACE);
  }

  private randomBytes(): Uint8Array {
    if (this.offset + 16 > this.pool.length) {
      this.pool = randomFillSync(new Uint8Array(POOL_BYTES));
      this.offset = 0;
    }
    const bytes = this.pool.subarray(this.offset, this.offset + 16);
    this.offset += 16;
    return bytes;
  }
}
