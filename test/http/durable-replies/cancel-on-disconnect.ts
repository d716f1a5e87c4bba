import { expect } from 'chai';
import { eventually, replyClient } from '../../support/reply-client.js';
import { ScriptedChatModel } from '../../support/scripted-chat-model.js';
import type { TestService } from '../../support/service.js';
import { someone, type SuiteContext } from './context.js';

/** STREAM_ON_DISCONNECT=cancel: the starter leaving stops the reply, a resumed listener leaving does not. */
export function cancelOnDisconnectTests(ctx: SuiteContext): void {
  let cancelling: TestService;
  const cancelModel = new ScriptedChatModel();
  before(async () => {
    cancelling = await ctx.start({ STREAM_ON_DISCONNECT: 'cancel', SHUTDOWN_TIMEOUT_MS: '1000' }, { chatModel: cancelModel });
  });
  after(() => cancelling.stop());

  it('a client that disconnects stops the model; the partial reply is stored as cancelled', async () => {
    const who = someone();
    const client = replyClient(cancelling.url);
    const stream = await client.start({ ...who, text: 'bye' });
    const call = await cancelModel.nextCall();
    call.say('Only this 🙂');
    await stream.until('Only this 🙂');
    await stream.leave();
    await call.aborted;
    const reply = await eventually(async () => (await client.messages(who.user_id, who.conversation_id)).find((m) => m.role === 'assistant' && m.status === 'completed'), 'the partial reply to be stored');
    expect(reply.text).to.equal('Only this 🙂');
    expect(reply.metadata.finish_reason).to.equal('cancelled');
  });

  it('a listener that resumes and leaves does not stop the reply (only its starter does)', async () => {
    const who = someone();
    const client = replyClient(cancelling.url);
    const stream = await client.start({ ...who, text: 'stay' });
    const call = await cancelModel.nextCall();
    call.say('Going ');
    const resumed = await client.resume(stream.events[0]!.json.message_id, who.user_id);
    await resumed.until('Going ');
    await resumed.leave();
    call.say('on.');
    call.finish();
    expect((await stream.end()).json).to.include({ response: 'Going on.', finish_reason: 'stop' });
    expect(call.wasAborted).to.equal(false);
  });
}
