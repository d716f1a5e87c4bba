import { AbstractChat, DefaultChatTransport, type ChatState, type ChatStatus, type UIMessage } from 'ai';
import { documentedFetch } from './documented-responses.js';

/** The state `useChat` keeps in React, kept in plain fields: enough to drive the SDK's own Chat. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => void (this.messages[index] = message);
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * The AI SDK's transport as a front end configures it: the user in every request's body, and in
 * the query of the reconnect request (a GET, which has no body); the chat id is the conversation.
 */
export const transportFor = (api: string, userId: string) =>
  new DefaultChatTransport<UIMessage>({
    api,
    body: { user_id: userId },
    fetch: documentedFetch,
    prepareReconnectToStreamRequest: ({ api: base, id }) => ({ api: `${base}/${encodeURIComponent(id)}/stream?user_id=${encodeURIComponent(userId)}` }),
  });

/** The AI SDK's own Chat (what `useChat` runs) against `api`, for `userId`; its id, when given, is the conversation. */
export class PlainChat extends AbstractChat<UIMessage> {
  constructor(api: string, userId: string, conversationId?: string) {
    super({ id: conversationId, transport: transportFor(api, userId), state: new PlainChatState() });
  }
}

/** A UI message's text parts, joined. */
export const textOf = (message: UIMessage | undefined) => message?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? '';
