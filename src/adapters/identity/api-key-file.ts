import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { isValidClientId, ID_RULE } from '../../domain/ids.js';
import type { Identity } from './credentials.js';

/** An API keys file that cannot be used; the message names the problem, never a key or a hash. */
export class ApiKeysFileInvalidError extends Error {}

const DIGESTS = { sha256: 64, sha384: 96, sha512: 128 } as const;
type Digest = keyof typeof DIGESTS;

const hash = z
  .string()
  .regex(/^(sha256|sha384|sha512):[0-9a-f]+$/i, 'must be "sha256:<hex>" (or sha384, sha512): the hash of the key, never the key')
  .refine((value) => {
    const [algorithm = '', hex = ''] = value.split(':');
    return hex.length === DIGESTS[algorithm.toLowerCase() as Digest];
  }, 'has the wrong number of hex digits for its algorithm');

const entry = z.union(
  [
    z.strictObject({ name: z.string().max(128).optional(), hash, user_id: z.string().refine(isValidClientId, ID_RULE) }),
    z.strictObject({ name: z.string().max(128).optional(), hash, any_user: z.literal(true) }),
  ],
  { error: 'each key needs "hash" and either "user_id" (the user it acts as) or "any_user": true' },
);

const fileSchema = z.strictObject({ keys: z.array(entry) });

interface StoredKey {
  algorithm: Digest;
  digest: Buffer;
  userId: string | null;
}

/**
 * Static API keys for server-to-server callers, from a JSON file of their hashes:
 * `{"keys": [{"name": "reports", "hash": "sha256:<hex>", "user_id": "alice"}, {"hash": "sha512:<hex>", "any_user": true}]}`.
 * Keys are random secrets (32 bytes or more), so a plain SHA-2 hash is enough to keep the file
 * useless to whoever reads it; a slow password hash would only slow every request. The file is
 * read once, at start-up: removing a key and restarting revokes it.
 */
export class ApiKeyFile {
  private constructor(private readonly keys: StoredKey[]) {}

  static async load(path: string): Promise<ApiKeyFile> {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      const reason = error instanceof SyntaxError ? 'is not valid JSON' : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
      throw new ApiKeysFileInvalidError(`the API keys file ${reason}`);
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ApiKeysFileInvalidError(`the API keys file is invalid at ${issue.path.join('.') || 'the top level'}: ${issue.message}`);
    }
    const keys = parsed.data.keys.map((key): StoredKey => {
      const [algorithm, hex] = key.hash.toLowerCase().split(':') as [Digest, string];
      return { algorithm, digest: Buffer.from(hex, 'hex'), userId: 'user_id' in key ? key.user_id : null };
    });
    const distinct = new Set(keys.map((key) => `${key.algorithm}:${key.digest.toString('hex')}`));
    if (distinct.size !== keys.length) throw new ApiKeysFileInvalidError('the API keys file lists the same key twice');
    return new ApiKeyFile(keys);
  }

  get size(): number {
    return this.keys.length;
  }

  /**
   * The identity of a presented key, or null. Every stored hash is compared, in constant time,
   * whatever matched before: how long this takes says nothing about which key is close.
   */
  match(presented: string): Identity | null {
    const digests = new Map<Digest, Buffer>();
    const digestOf = (algorithm: Digest) => {
      let digest = digests.get(algorithm);
      if (!digest) digests.set(algorithm, (digest = createHash(algorithm).update(presented, 'utf8').digest()));
      return digest;
    };
    let found: StoredKey | null = null;
    for (const key of this.keys) {
      const same = timingSafeEqual(key.digest, digestOf(key.algorithm));
      if (same && found === null) found = key;
    }
    return found ? { userId: found.userId, method: 'api-key' } : null;
  }
}
