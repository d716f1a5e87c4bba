import { replyClient, type ReplyClient } from '../support/reply-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import type { TestService } from '../support/service.js';
import { aiSdkResumeTests } from './durable-replies/ai-sdk-resume.js';
import { cancelOnDisconnectTests } from './durable-replies/cancel-on-disconnect.js';
import type { DurableReplyFixture, SuiteContext } from './durable-replies/context.js';
import { repeatTests } from './durable-replies/repeat.js';
import { resumeTests } from './durable-replies/resume.js';
import { shutdownTests } from './durable-replies/shutdown.js';
import { stopTests } from './durable-replies/stop.js';
import { streamingTests } from './durable-replies/streaming.js';

export type { DurableReplyFixture, LastingStore, StartService } from './durable-replies/context.js';

/**
 * The durable replies of the contract ("Durable replies: resume and stop"), through HTTP, on
 * one store: a reply outlives its connection, is stored while it grows, resumes from any
 * position, stops on request, and is joined by a repeated message_id. The model is scripted,
 * so each test decides what is said between its looks at the service.
 */
export function durableReplySuite(fixture: DurableReplyFixture): void {
  let service: TestService;
  let replies: ReplyClient;
  const model = new ScriptedChatModel();
  before(async () => {
    service = await fixture.start({ SHUTDOWN_TIMEOUT_MS: '1000', STREAM_WRITE_INTERVAL_MS: '50' }, { chatModel: model });
    replies = replyClient(service.url);
  });
  after(() => service?.stop()); // unset when the store's suite was skipped (no PostgreSQL here)
  // A test that failed half-way must not hand its model call to the next one.
  beforeEach(() => model.forgetCalls());

  const context: SuiteContext = {
    ...fixture,
    model,
    get service() {
      return service;
    },
    get replies() {
      return replies;
    },
  };
  streamingTests(context);
  describe('resume', () => resumeTests(context));
  describe('stop', () => stopTests(context));
  describe('a repeated message_id', () => repeatTests(context));
  describe('with STREAM_ON_DISCONNECT=cancel', () => cancelOnDisconnectTests(context));
  describe('the AI SDK resume endpoint (GET /v1/chat/stream/{conversation_id}/stream)', () => aiSdkResumeTests(context));
  describe('a shutdown that outlasts SHUTDOWN_TIMEOUT_MS', () => shutdownTests(context));
}
