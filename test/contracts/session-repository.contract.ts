import { expect } from 'chai';
import { Session } from '../../src/domain/session.js';
import { aConversation, aSession, at } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { claimed, type MakeStore, withStore } from './store-fixture.js';

export function sessionRepositoryContract(make: MakeStore): void {
  describe('SessionRepository contract', () => {
    const store = withStore(make);
    const newConversation = () => store.run((r) => claimed(r, aConversation()));

    it('finds nothing for an unknown id', async () => {
      expect(await store.run((r) => r.sessions.findById(uid('none')))).to.equal(null);
    });

    it('stores a session with every field intact', async () => {
      const session = aSession(await newConversation(), {
        endedAt: at('2026-11-22T11:00:00.000Z'),
        metadata: { tags: ['a', 'b'], depth: { x: 1 } },
      });
      await store.run((r) => r.sessions.save(session));
      expect((await store.run((r) => r.sessions.findById(session.sessionId)))?.toProps()).to.deep.equal(session.toProps());
    });

    it('create inserts a new session, and writes nothing when one with its id exists', async () => {
      const conversation = await newConversation();
      const session = aSession(conversation, { title: 'First' });
      expect(await store.run((r) => r.sessions.create(session))).to.equal(true);
      const rival = aSession(await newConversation(), { title: 'Second' }).toProps();
      expect(await store.run((r) => r.sessions.create(Session.create({ ...rival, sessionId: session.sessionId })))).to.equal(false);
      expect((await store.run((r) => r.sessions.findById(session.sessionId)))?.toProps()).to.deep.equal(session.toProps());
    });

    it('saving again replaces the stored session', async () => {
      const session = aSession(await newConversation(), { title: 'Before', startedAt: null });
      await store.run((r) => r.sessions.save(session));
      const updated = session.update({ title: 'After', metadata: {} }, at('2026-11-22T12:00:00.000Z'));
      await store.run((r) => r.sessions.save(updated));
      const found = await store.run((r) => r.sessions.findById(session.sessionId));
      expect(found?.toProps()).to.deep.equal(updated.toProps());
      expect(found?.title).to.equal('After');
    });
  });
}
