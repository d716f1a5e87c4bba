import type { AdapterOverrides } from '../../../src/bootstrap/tokens.js';
import { uid } from '../../support/ids.js';
import type { ReplyClient } from '../../support/reply-client.js';
import type { ScriptedChatModel } from '../../support/scripted-chat-model.js';
import type { TestService } from '../../support/service.js';

export type StartService = (environment?: Record<string, string>, overrides?: AdapterOverrides) => Promise<TestService>;

/** A store that outlives a service: what to start the service with, and how to read it once that service stopped. */
export interface LastingStore {
  overrides: AdapterOverrides;
  messages(userId: string, conversationId: string): Promise<{ role: string; text: string; status: string; metadata: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/** What each store's test file gives the suite. */
export interface DurableReplyFixture {
  start: StartService;
  lastingStore(): Promise<LastingStore>;
}

/** What the parts of the suite share: the fixture, and the service (with its scripted model) started for them. */
export interface SuiteContext extends DurableReplyFixture {
  readonly service: TestService;
  readonly replies: ReplyClient;
  readonly model: ScriptedChatModel;
}

/** Who a test chats as: a user and a conversation of their own, and a message id to repeat. */
export const someone = () => ({ user_id: uid('u'), conversation_id: uid('c'), message_id: uid('m') });
