import { expect } from 'chai';
import { codePoints, eventually } from '../../support/reply-client.js';
import { someone, type SuiteContext } from './context.js';

/** A reply outlives its connection, shows in loadMessages while it grows, and every event carries its position. */
export function streamingTests(ctx: SuiteContext): void {
  it('a client that disconnects mid-stream leaves the reply running; the whole reply is stored', async () => {
    const who = someone();
    const stream = await ctx.replies.start({ ...who, text: 'tell me everything' });
    const call = await ctx.model.nextCall();
    call.say('The first part, ');
    await stream.until('The first part, ');
    await stream.leave();
    call.say('the second part ', 'and the end.');
    call.finish();
    const reply = await eventually(async () => (await ctx.replies.messages(who.user_id, who.conversation_id)).find((m) => m.role === 'assistant' && m.status === 'completed'), 'the reply to be stored');
    expect(call.wasAborted).to.equal(false);
    expect(reply).to.include({ text: 'The first part, the second part and the end.', message_id: stream.events[0]!.json.message_id });
    expect(reply.metadata).to.include({ finish_reason: 'stop', model: 'scripted-1' });
  });

  it("the first turn's stream announces the title its conversation took: none when its user named it while the reply was written", async () => {
    const who = someone();
    const stream = await ctx.replies.start({ ...who, text: 'name me' });
    const call = await ctx.model.nextCall();
    call.say('Hello ');
    await stream.until('Hello ');
    const renamed = await ctx.service.call('PATCH', `/api/chat/conversations/${encodeURIComponent(who.conversation_id)}`, { body: { user_id: who.user_id, title: 'Mine' } });
    expect(renamed.status, renamed.text).to.equal(200);
    call.say('there.');
    call.finish();
    await stream.end();
    expect(stream.events.map((e) => e.event)).to.not.include('title');
    const other = someone();
    const named = await ctx.replies.start({ ...other, text: 'name me too' });
    (await ctx.model.nextCall()).say('Hi.').finish();
    await named.end();
    expect(named.events.filter((e) => e.event === 'title').map((e) => e.json)).to.deep.equal([{ conversation_id: other.conversation_id, title: 'name me too', title_source: 'first_message' }]);
  });

  it('loadMessages during a reply lists it in_progress with a growing prefix of its text', async () => {
    const who = someone();
    const stream = await ctx.replies.start({ ...who, text: 'go on' });
    const call = await ctx.model.nextCall();
    const assistant = async () => (await ctx.replies.messages(who.user_id, who.conversation_id)).find((m) => m.role === 'assistant');
    const opened = await assistant();
    expect(opened, 'the reply is listed from start on').to.include({ status: 'in_progress', text: '', message_id: stream.events[0]!.json.message_id });
    const [user] = await ctx.replies.messages(who.user_id, who.conversation_id);
    expect(user).to.include({ role: 'user', status: 'completed' });
    const seen: string[] = [];
    for (const piece of ['One, ', 'two, ', 'three.']) {
      call.say(piece);
      await stream.until(call.text);
      const shown = await eventually(async () => {
        const reply = await assistant();
        return reply?.text === call.text ? reply : undefined;
      }, `the stored text to reach ${JSON.stringify(call.text)}`);
      expect(shown.status).to.equal('in_progress');
      seen.push(shown.text);
    }
    call.finish();
    const done = await stream.end();
    for (const prefix of seen) expect(done.json.response.startsWith(prefix)).to.equal(true);
    expect(await assistant()).to.include({ status: 'completed', text: 'One, two, three.' });
  });

  it('every event carries as its id the code points the client holds (astral characters count once)', async () => {
    const who = someone();
    const stream = await ctx.replies.start({ ...who, text: 'emoji please' });
    const call = await ctx.model.nextCall();
    call.say('Hi 👋🏽 ', 'there 𝄞', ' — ok 🎉');
    call.finish();
    const done = await stream.end();
    expect(stream.events[0]!.id).to.equal('0');
    let held = '';
    // The first turn names its conversation just before done, at the reply's whole length.
    expect(stream.events.at(-2)!.event).to.equal('title');
    expect(stream.events.at(-2)!.id).to.equal(done.id);
    for (const event of stream.events.slice(1, -2)) {
      expect(event.event).to.equal('delta');
      held += event.json.text;
      expect(event.id).to.equal(String(codePoints(held)));
    }
    expect(done.id).to.equal(String(codePoints(done.json.response)));
    expect(done.json.response).to.equal('Hi 👋🏽 there 𝄞 — ok 🎉');
  });

  it('the AI SDK protocol carries the same ids, on the first stream and on a resume', async () => {
    const who = someone();
    const headers = { 'X-Stream-Protocol': 'ui-message' };
    const first = await ctx.replies.start({ ...who, text: 'ids please' }, headers);
    expect(first.events[0]!.json).to.deep.include({ type: 'start' });
    const call = await ctx.model.nextCall();
    call.say('Hi 👋🏽 ', 'there 𝄞');
    call.finish();
    await first.end();
    const idsOf = (events: { id: string | undefined; json: { type?: string; delta?: string } | undefined }[]) => {
      let held = '';
      return events.map((event) => {
        if (event.json?.type === 'text-delta') held += event.json.delta;
        expect(event.id, JSON.stringify(event.json)).to.equal(String(codePoints(held)));
        return event.id;
      });
    };
    idsOf(first.events);
    expect(first.events.at(-1)!.data).to.equal('[DONE]');
    const messageId = first.events[0]!.json.messageId;
    const resumed = await ctx.replies.resume(messageId, who.user_id, { lastEventId: 3, headers });
    await resumed.end();
    expect(resumed.events.map((e) => e.json?.type ?? e.data)).to.deep.equal(['start', 'text-start', 'text-delta', 'text-end', 'finish', '[DONE]']);
    expect(resumed.events[2]!.json.delta).to.equal('👋🏽 there 𝄞');
    expect(resumed.events.map((e) => e.id)).to.deep.equal(['3', '3', ...Array(4).fill(String(codePoints('Hi 👋🏽 there 𝄞')))]);
  });
}
