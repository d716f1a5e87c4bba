import { expect } from 'chai';
import { User } from '../../src/domain/user.js';
import { aUser } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { type MakeStore, withStore } from './store-fixture.js';

export function userRepositoryContract(make: MakeStore): void {
  describe('UserRepository contract', () => {
    const store = withStore(make);

    it('finds nothing for an unknown id', async () => {
      expect(await store.run((r) => r.users.findById(uid('nobody')))).to.equal(null);
    });

    it('ensure stores a new user and returns it', async () => {
      const user = aUser();
      const stored = await store.run((r) => r.users.ensure(user));
      expect(stored.userId).to.equal(user.userId);
      const found = await store.run((r) => r.users.findById(user.userId));
      expect(found?.userId).to.equal(user.userId);
      expect(found?.createdAt.getTime()).to.equal(user.createdAt.getTime());
    });

    it('ensure keeps the first user when called again', async () => {
      const first = aUser();
      await store.run((r) => r.users.ensure(first));
      const again = User.create({ userId: first.userId, createdAt: new Date(first.createdAt.getTime() + 5000) });
      const stored = await store.run((r) => r.users.ensure(again));
      expect(stored.createdAt.getTime()).to.equal(first.createdAt.getTime());
    });

    it('stores ids with any Unicode text, as clients send them', async () => {
      const user = aUser(`ユーザー-😀-${uid()}`);
      await store.run((r) => r.users.ensure(user));
      expect((await store.run((r) => r.users.findById(user.userId)))?.userId).to.equal(user.userId);
    });
  });
}
