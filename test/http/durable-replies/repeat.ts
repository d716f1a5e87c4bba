import { expect } from 'chai';
import { someone, type SuiteContext } from './context.js';

/** A repeated message_id joins the reply in progress, or asks again for one cut short. */
export function repeatTests(ctx: SuiteContext): void {
  it('while its reply is in progress joins it: a streamed repeat gets the reply from its beginning, a plain one waits for it', async () => {
    const who = someone();
    const body = { ...who, text: 'join me' };
    const original = await ctx.replies.start(body);
    const call = await ctx.model.nextCall();
    call.say('Already ', 'said. ');
    await original.until('Already said. ');
    const joined = await ctx.replies.start(body);
    expect(joined.events[0]!.json).to.deep.equal(original.events[0]!.json);
    expect(joined.events[0]!.id).to.equal('0');
    const plain = ctx.replies.chat(body);
    await joined.until('Already said. ');
    call.say('Then more.');
    call.finish();
    const [originalDone, joinedDone, answer] = await Promise.all([original.end(), joined.end(), plain]);
    expect(joined.text).to.equal(joinedDone.json.response);
    expect(joinedDone.json).to.deep.equal(originalDone.json);
    expect(answer.status).to.equal(200);
    expect(answer.json).to.include({ response: 'Already said. Then more.', message_id: originalDone.json.message_id, user_message_id: who.message_id, finish_reason: 'stop' });
    expect(ctx.model.calls.filter((c) => c.request.text === 'join me')).to.have.length(1);
    expect((await ctx.replies.messages(who.user_id, who.conversation_id)).map((m) => m.role)).to.deep.equal(['user', 'assistant']);
  });

  it('whose reply was cut short asks the model again, and the new reply replaces the old', async () => {
    const who = someone();
    const body = { ...who, text: 'try again' };
    const first = await ctx.replies.start(body);
    const firstCall = await ctx.model.nextCall();
    firstCall.say('Cut ');
    await first.until('Cut ');
    const firstId = first.events[0]!.json.message_id;
    await ctx.replies.stop(firstId, who.user_id);
    expect((await first.end()).json.finish_reason).to.equal('cancelled');

    const streamed = await ctx.replies.start(body);
    const secondCall = await ctx.model.nextCall();
    expect(streamed.events[0]!.json.message_id).to.not.equal(firstId);
    secondCall.say('A whole answer.');
    secondCall.finish();
    expect((await streamed.end()).json).to.include({ response: 'A whole answer.', finish_reason: 'stop' });
    const stored = await ctx.replies.messages(who.user_id, who.conversation_id);
    expect(stored.map((m) => [m.role, m.text, m.metadata.finish_reason ?? null])).to.deep.equal([
      ['user', 'try again', null],
      ['assistant', 'A whole answer.', 'stop'],
    ]);
    expect((await ctx.replies.resumeAnswer(firstId, who.user_id)).status, 'the replaced reply is gone').to.equal(404);
  });

  it('repeated by several requests at once after it was cut short: the model is asked once, and all of them get that reply', async () => {
    const who = someone();
    const body = { ...who, text: 'all at once' };
    const first = await ctx.replies.start(body);
    const firstCall = await ctx.model.nextCall();
    firstCall.say('Cut');
    await first.until('Cut');
    await ctx.replies.stop(first.events[0]!.json.message_id, who.user_id);
    await first.end();
    const callsBefore = ctx.model.calls.length;
    const repeats = await Promise.all([ctx.replies.start(body), ctx.replies.start(body), ctx.replies.start(body), ctx.replies.start(body)]);
    const again = await ctx.model.nextCall();
    again.say('Once ', 'for all.');
    again.finish();
    const ends = await Promise.all(repeats.map((stream) => stream.end()));
    expect(ctx.model.calls.length - callsBefore).to.equal(1);
    expect(new Set(repeats.map((stream) => stream.events[0]!.json.message_id)).size).to.equal(1);
    for (const [index, stream] of repeats.entries()) {
      expect(stream.text).to.equal('Once for all.');
      expect(ends[index]!.json).to.include({ response: 'Once for all.', finish_reason: 'stop' });
    }
    expect((await ctx.replies.messages(who.user_id, who.conversation_id)).map((m) => m.text)).to.deep.equal(['all at once', 'Once for all.']);
  });

  it('through POST /v1/chat, a reply cut short is asked for again too', async () => {
    const who = someone();
    const body = { ...who, text: 'plainly' };
    const first = await ctx.replies.start(body);
    const firstCall = await ctx.model.nextCall();
    firstCall.say('Half');
    await first.until('Half');
    await ctx.replies.stop(first.events[0]!.json.message_id, who.user_id);
    await first.end();
    const plain = ctx.replies.chat(body);
    const secondCall = await ctx.model.nextCall();
    secondCall.say('Whole.');
    secondCall.finish();
    const answer = await plain;
    expect(answer.status).to.equal(200);
    expect(answer.json).to.include({ response: 'Whole.', finish_reason: 'stop' });
    const stored = await ctx.replies.messages(who.user_id, who.conversation_id);
    expect(stored.map((m) => m.text)).to.deep.equal(['plainly', 'Whole.']);
  });
}
