import type { UserRepository } from '../../../application/ports/user-repository.js';
import type { User } from '../../../domain/user.js';
import type { UndoLog } from './undo-log.js';
import type { MemoryStore } from './memory-store.js';

export class InMemoryUserRepository implements UserRepository {
  constructor(
    private readonly store: MemoryStore,
    private readonly undo: UndoLog,
  ) {}

  async findById(userId: string): Promise<User | null> {
    return this.store.users.get(userId) ?? null;
  }

  async ensure(user: User): Promise<User> {
    const existing = this.store.users.get(user.userId);
    if (existing) return existing;
    this.store.users.set(user.userId, user);
    this.undo.record(() => this.store.users.delete(user.userId));
    return user;
  }
}
