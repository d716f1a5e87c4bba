import { expect } from 'chai';
import { ChatModelFailedError } from '../../../src/domain/errors.js';
import { uid } from '../../support/ids.js';
import { codePoints, eventually } from '../../support/reply-client.js';
import { someone, type SuiteContext } from './context.js';

/** GET /v1/chat/stream/{message_id}: the missing text from any position, then the rest. */
export function resumeTests(ctx: SuiteContext): void {
  it('with Last-Event-ID from the middle gives exactly the missing text, then the live rest', async () => {
    const who = someone();
    const first = await ctx.replies.start({ ...who, text: 'a long one' });
    const call = await ctx.model.nextCall();
    call.say('Grüße 👋🏽 ', 'aus 𝄞 Köln. ');
    await first.until('aus 𝄞 Köln. ');
    const held = first.text;
    const position = first.position;
    expect(position).to.equal(codePoints(held));
    await first.leave();
    call.say('Said while away 🎉. ');
    await eventually(async () => ((await ctx.replies.messages(who.user_id, who.conversation_id)).at(-1).text === call.text ? true : undefined), 'the text said while away to be stored');

    const resumed = await ctx.replies.resume(first.events[0]!.json.message_id, who.user_id, { lastEventId: position });
    expect(resumed.events[0]!.id).to.equal(String(position));
    expect(resumed.events[0]!.json).to.deep.equal(first.events[0]!.json);
    const catchUp = await resumed.next();
    expect(catchUp, 'one delta holds everything after the position').to.deep.include({ event: 'delta', json: { text: 'Said while away 🎉. ' } });
    expect(catchUp.id).to.equal(String(codePoints(call.text)));
    call.say('And live ', 'at the end.');
    call.finish();
    const done = await resumed.end();
    expect(done.event).to.equal('done');
    expect(held + resumed.text).to.equal(done.json.response);
    expect(done.json.response).to.equal(call.text);
    expect(done.id).to.equal(String(codePoints(call.text)));
  });

  it('with ?after= too; with neither, from the beginning', async () => {
    const who = someone();
    const first = await ctx.replies.start({ ...who, text: 'again' });
    const call = await ctx.model.nextCall();
    call.say('𝄞𝄞𝄞 abc');
    await first.until('abc');
    const messageId = first.events[0]!.json.message_id;
    const after = await ctx.replies.resume(messageId, who.user_id, { after: 2 });
    const whole = await ctx.replies.resume(messageId, who.user_id);
    call.say(' def');
    call.finish();
    const [afterDone, wholeDone, firstDone] = await Promise.all([after.end(), whole.end(), first.end()]);
    expect('𝄞𝄞' + after.text).to.equal(afterDone.json.response);
    expect(whole.text).to.equal(wholeDone.json.response);
    expect(wholeDone.json).to.deep.equal(firstDone.json);
    expect(afterDone.json.response).to.equal('𝄞𝄞𝄞 abc def');
  });

  it('of a finished reply gives the same events and ends at once', async () => {
    const who = someone();
    const first = await ctx.replies.start({ ...who, text: 'short' });
    const call = await ctx.model.nextCall();
    call.say('Done 👍 already.');
    call.finish();
    const done = await first.end();
    const messageId = done.json.message_id;
    const again = await ctx.replies.resume(messageId, who.user_id, { lastEventId: 5 });
    await again.end();
    expect(again.events.map((e) => [e.event, e.id])).to.deep.equal([
      ['start', '5'],
      ['delta', String(codePoints(done.json.response))],
      ['done', String(codePoints(done.json.response))],
    ]);
    expect(again.events[1]!.json.text).to.equal('👍 already.');
    expect(again.events[2]!.json).to.deep.equal(done.json);
    const atEnd = await ctx.replies.resume(messageId, who.user_id, { after: codePoints(done.json.response) });
    await atEnd.end();
    expect(atEnd.events.map((e) => e.event)).to.deep.equal(['start', 'done']);
  });

  it('from a position past the end: nothing more to send, and done carries the final total, live or finished', async () => {
    const who = someone();
    const first = await ctx.replies.start({ ...who, text: 'overshoot' });
    const call = await ctx.model.nextCall();
    call.say('Hello 🌍');
    await first.until('Hello 🌍');
    const messageId = first.events[0]!.json.message_id;
    const live = await ctx.replies.resume(messageId, who.user_id, { after: 1000 });
    call.say('!');
    call.finish();
    await first.end();
    await live.end();
    const finished = await ctx.replies.resume(messageId, who.user_id, { lastEventId: 1000 });
    await finished.end();
    // A whole number too big to be exact is past the end all the same, not malformed.
    const huge = await ctx.replies.resume(messageId, who.user_id, { after: '99999999999999999999' });
    await huge.end();
    expect(huge.events.map((e) => e.event)).to.deep.equal(['start', 'done']);
    expect(huge.events.at(-1)).to.deep.include({ id: String(codePoints('Hello 🌍!')) });
    for (const stream of [live, finished]) {
      expect(stream.events[0]!.id).to.equal('1000');
      expect(stream.events.filter((e) => e.event === 'delta'), 'nothing it says it holds is sent again').to.deep.equal([]);
      expect(stream.events.at(-1)).to.deep.include({ event: 'done', id: String(codePoints('Hello 🌍!')) });
    }
  });

  it('of a reply the model failed ends with an error event carrying the stored detail', async () => {
    const who = someone();
    const first = await ctx.replies.start({ ...who, text: 'fail me' });
    const call = await ctx.model.nextCall();
    call.say('Half an answer');
    await first.until('Half an answer');
    call.fail(new ChatModelFailedError('the language model answered 503 Service Unavailable'));
    const failed = await first.end();
    expect(failed.event).to.equal('error');
    const again = await ctx.replies.resume(first.events[0]!.json.message_id, who.user_id, { after: 5 });
    const end = await again.end();
    expect(again.text).to.equal('an answer');
    expect(end).to.deep.include({ event: 'error', id: String(codePoints('Half an answer')) });
    expect(end.json).to.deep.equal(failed.json);
    const stored = (await ctx.replies.messages(who.user_id, who.conversation_id))[1];
    expect(stored).to.include({ status: 'completed', text: 'Half an answer' });
    expect(stored.metadata.finish_reason).to.equal('error');
  });

  it('404 for an unknown message, another user, or a user message; 400 for a malformed position', async () => {
    const who = someone();
    const first = await ctx.replies.start({ ...who, text: 'mine' });
    const call = await ctx.model.nextCall();
    call.say('Mine.');
    call.finish();
    const done = await first.end();
    for (const [messageId, userId] of [
      [uid('nothing'), who.user_id],
      [done.json.message_id, uid('intruder')],
      [done.json.user_message_id, who.user_id],
    ] as const) {
      const answer = await ctx.replies.resumeAnswer(messageId, userId);
      expect(answer.status).to.equal(404);
      expect(answer.json.status).to.equal('error');
    }
    for (const position of [{ lastEventId: 'x' }, { after: '-1' }, { after: '1.5' }]) {
      const malformed = await ctx.replies.resumeAnswer(done.json.message_id, who.user_id, position);
      expect(malformed.status, JSON.stringify(position)).to.equal(400);
      expect(malformed.json.status).to.equal('error');
    }
  });
}
