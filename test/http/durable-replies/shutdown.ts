import { expect } from 'chai';
import { codePoints, replyClient } from '../../support/reply-client.js';
import { ScriptedChatModel } from '../../support/scripted-chat-model.js';
import { someone, type SuiteContext } from './context.js';

/** A shutdown past SHUTDOWN_TIMEOUT_MS: replies still running are stored as interrupted, their streams end with an error. */
export function shutdownTests(ctx: SuiteContext): void {
  it('stores every reply still running as interrupted and ends its open streams with an error event', async () => {
    const store = await ctx.lastingStore();
    try {
      const shutdownModel = new ScriptedChatModel();
      const doomed = await ctx.start({ SHUTDOWN_TIMEOUT_MS: '300' }, { ...store.overrides, chatModel: shutdownModel });
      const client = replyClient(doomed.url);
      const [listened, left] = [someone(), someone()];
      const stream = await client.start({ ...listened, text: 'long answer' });
      const listenedCall = await shutdownModel.nextCall();
      const leaving = await client.start({ ...left, text: 'long answer too' });
      const leftCall = await shutdownModel.nextCall();
      listenedCall.say('Cut off 🛑 ', 'here');
      leftCall.say('Nobody listens');
      await stream.until('Cut off 🛑 here');
      await leaving.until('Nobody listens');
      await leaving.leave();
      const stopping = doomed.stop();
      await Promise.all([listenedCall.aborted, leftCall.aborted]);
      const end = await stream.end();
      expect(end.event).to.equal('error');
      expect(end.json.status).to.equal('error');
      expect(end.json.detail).to.be.a('string').and.not.equal('');
      expect(end.id).to.equal(String(codePoints('Cut off 🛑 here')));
      await stopping;
      for (const [who, text] of [
        [listened, 'Cut off 🛑 here'],
        [left, 'Nobody listens'],
      ] as const) {
        const stored = await store.messages(who.user_id, who.conversation_id);
        expect(stored.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
        expect(stored[1]).to.include({ status: 'completed', text });
        expect(stored[1]!.metadata.finish_reason).to.equal('interrupted');
      }
    } finally {
      await store.close();
    }
  });
}
