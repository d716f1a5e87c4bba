import { assertClientId } from './ids.js';

export class User {
  private constructor(
    readonly userId: string,
    readonly createdAt: Date,
  ) {}

  static create(props: { userId: string; createdAt: Date }): User {
    return new User(assertClientId(props.userId, 'user_id'), props.createdAt);
  }

  static restore(props: { userId: string; createdAt: Date }): User {
    return new User(props.userId, props.createdAt);
  }
}
