import { expect } from 'chai';
import { uid } from '../../support/ids.js';
import { codePoints } from '../../support/reply-client.js';
import { someone, type SuiteContext } from './context.js';

/** POST /v1/chat/stream/{message_id}/stop: every stream of the reply ends as cancelled. */
export function stopTests(ctx: SuiteContext): void {
  it('from a second connection ends every stream with done "cancelled" and stores the text so far', async () => {
    const who = someone();
    const original = await ctx.replies.start({ ...who, text: 'ramble' });
    const call = await ctx.model.nextCall();
    call.say('Partial 🎈 ', 'text');
    await original.until('Partial 🎈 text');
    const messageId = original.events[0]!.json.message_id;
    const resumed = await ctx.replies.resume(messageId, who.user_id);
    await resumed.until('Partial 🎈 text');
    const stopped = await ctx.replies.stop(messageId, who.user_id);
    expect(stopped.status).to.equal(200);
    expect(stopped.json.status).to.equal('ok');
    expect(stopped.json.message).to.include({ message_id: messageId, role: 'assistant', status: 'completed', text: 'Partial 🎈 text' });
    expect(stopped.json.message.metadata.finish_reason).to.equal('cancelled');
    await call.aborted;
    for (const stream of [original, resumed]) {
      const done = await stream.end();
      expect(done.event).to.equal('done');
      expect(done.json).to.include({ finish_reason: 'cancelled', response: 'Partial 🎈 text', message_id: messageId });
      expect(done.id).to.equal(String(codePoints('Partial 🎈 text')));
    }
    const again = await ctx.replies.stop(messageId, who.user_id);
    expect(again).to.deep.equal(stopped);
    const stored = await ctx.replies.messages(who.user_id, who.conversation_id);
    expect(stored.at(-1)).to.deep.equal(stopped.json.message);
  });

  it('a reply deleted while it is written ends its stream with done carrying the text the stream sent (it carried none)', async () => {
    const who = someone();
    const original = await ctx.replies.start({ ...who, text: 'ramble on' });
    const call = await ctx.model.nextCall();
    call.say('Words ', 'already ');
    await original.until('Words already ');
    const messageId = original.events[0]!.json.message_id;
    const deleted = await ctx.service.call('DELETE', '/api/chat/deleteMessages', { body: { ...who, message_ids: [messageId] } });
    expect([deleted.status, deleted.json.deleted], deleted.text).to.deep.equal([200, 1]);
    call.say('sent.');
    call.finish();
    const done = await original.end();
    expect(done.event).to.equal('done');
    const sent = original.events.filter((e) => e.event === 'delta').map((e) => e.json.text as string).join('');
    expect(done.json.response).to.equal(sent);
    expect(done.id).to.equal(String(codePoints(sent)));
    expect((await ctx.replies.messages(who.user_id, who.conversation_id)).map((m) => m.role)).to.deep.equal(['user']);
  });

  it('before the first piece removes the reply: message null', async () => {
    const who = someone();
    const original = await ctx.replies.start({ ...who, text: 'quiet' });
    const call = await ctx.model.nextCall();
    const messageId = original.events[0]!.json.message_id;
    const stopped = await ctx.replies.stop(messageId, who.user_id);
    expect(stopped).to.deep.equal({ status: 200, json: { status: 'ok', message: null } });
    expect(call.wasAborted).to.equal(true);
    const done = await original.end();
    expect(done.event).to.equal('done');
    expect(done.json).to.include({ finish_reason: 'cancelled', response: '' });
    expect((await ctx.replies.messages(who.user_id, who.conversation_id)).map((m) => m.role)).to.deep.equal(['user']);
    expect((await ctx.replies.resumeAnswer(messageId, who.user_id)).status).to.equal(404);
  });

  it('before the first piece, a plain POST /v1/chat waiting for it answers as the stream ends: 200, no text, cancelled (not a model failure)', async () => {
    const who = someone();
    const plain = ctx.replies.chat({ ...who, text: 'quiet too' });
    const call = await ctx.model.nextCall();
    const [reply] = (await ctx.replies.messages(who.user_id, who.conversation_id)).filter((m) => m.role === 'assistant');
    expect((await ctx.replies.stop(reply!.message_id, who.user_id)).json).to.deep.equal({ status: 'ok', message: null });
    expect(call.wasAborted).to.equal(true);
    const answer = await plain;
    expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
    expect(answer.json).to.include({ status: 'ok', response: '', message_id: reply!.message_id, finish_reason: 'cancelled', conversation_id: who.conversation_id });
    expect((await ctx.replies.messages(who.user_id, who.conversation_id)).map((m) => m.role)).to.deep.equal(['user']);
  });

  it('404 for another user, an unknown id, or a user message', async () => {
    const who = someone();
    const original = await ctx.replies.start({ ...who, text: 'keep going' });
    const call = await ctx.model.nextCall();
    call.say('Still here.');
    await original.until('Still here.');
    const { message_id: messageId, user_message_id: userMessageId } = original.events[0]!.json;
    for (const [id, userId] of [
      [messageId, uid('intruder')],
      [uid('nothing'), who.user_id],
      [userMessageId, who.user_id],
    ] as const) {
      const answer = await ctx.replies.stop(id, userId);
      expect(answer.status, `${id} as ${userId}`).to.equal(404);
      expect(answer.json.status).to.equal('error');
    }
    expect(call.wasAborted, 'a refused stop stops nothing').to.equal(false);
    call.finish();
    expect((await original.end()).json.finish_reason).to.equal('stop');
  });
}
