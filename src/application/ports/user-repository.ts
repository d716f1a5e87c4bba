import type { User } from '../../domain/user.js';

export interface UserRepository {
  findById(userId: string): Promise<User | null>;
  /** Stores the user unless one with that id exists; returns the stored one. */
  ensure(user: User): Promise<User>;
}
