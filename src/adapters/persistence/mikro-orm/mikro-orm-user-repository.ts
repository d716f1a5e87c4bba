import type { Statements } from './statements.js';
import type { UserRepository } from '../../../application/ports/user-repository.js';
import type { User } from '../../../domain/user.js';
import { toUser, type Timestamp } from './rows.js';

type UserRow = { user_id: string; created_at: Timestamp };

export class MikroOrmUserRepository implements UserRepository {
  constructor(private readonly db: Statements) {}

  async findById(userId: string): Promise<User | null> {
    const rows = await this.db.rows<UserRow>('select user_id, created_at from users where user_id = ?', [userId]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async ensure(user: User): Promise<User> {
    await this.db.changed('insert into users (user_id, created_at) values (?, ?) on conflict (user_id) do nothing', [
      user.userId,
      user.createdAt,
    ]);
    return (await this.findById(user.userId)) ?? user;
  }
}
