import { z } from 'zod';
import type { ChatInput } from '../../application/replies/start-turn.js';
import { isJsonObject } from '../../domain/metadata.js';
import { requestedStreamProtocol, type StreamProtocol } from './chat-stream-encoders.js';
import { clientId, text, type RequestSchemas } from './schemas.js';
import { parseRequest } from './validate.js';

const optionalId = () =>
  clientId()
    .nullish()
    .transform((v) => v ?? undefined);

const LAST_MESSAGE = 'the last message must be a user message with text';

/**
 * The body `useChat` (Vercel AI SDK) sends by default: `{id, messages: [{id, role, parts}],
 * trigger, messageId}` plus the fields its `body` option adds (`user_id`, optionally
 * `conversation_id`). Only the last user message is used, stored under its UI message id and
 * after the message before it when that one is stored (so an edit — a truncated list and a new
 * message — starts a branch); the stored branch is the history the model sees. `regenerate()`
 * (`trigger: "regenerate-message"`) answers its message again against the stored tree.
 */
export function uiChatRequestSchema(maxTextLength: number) {
  const part = z.looseObject({ type: z.string(), text: z.string().optional() });
  const message = z.looseObject({ id: z.string().optional(), role: z.string(), parts: z.array(part, { error: 'must be an array of parts' }) });
  return z
    .object(
      {
        user_id: clientId(),
        conversation_id: optionalId(),
        message_id: optionalId(),
        /** useChat's chat id: the conversation, unless conversation_id says otherwise. */
        id: optionalId(),
        messages: z.array(message, { error: 'must be an array of UI messages' }).min(1, LAST_MESSAGE),
        trigger: z.string().optional(),
        messageId: optionalId(),
      },
      { error: 'must be a JSON object' },
    )
    .transform((body, ctx): ChatFields => {
      const last = body.messages.at(-1)!;
      const conversationId = body.conversation_id ?? body.id;
      const uiId = (m: { id?: string } | undefined) => (m?.id !== undefined && clientId().safeParse(m.id).success ? m.id : undefined);
      if (body.trigger === 'regenerate-message') {
        const target = body.messageId ?? uiId(last);
        if (target === undefined) {
          ctx.addIssue({ code: 'custom', path: ['messageId'], message: 'names no message to regenerate' });
          return z.NEVER;
        }
        return { user_id: body.user_id, conversation_id: conversationId, regenerate: target };
      }
      const said = last.parts.flatMap((p) => (p.type === 'text' && p.text !== undefined ? [p.text] : [])).join('\n');
      const checked = text(maxTextLength).safeParse(said);
      if (last.role !== 'user' || !checked.success) {
        const message = last.role !== 'user' || said === '' ? LAST_MESSAGE : `text ${checked.error!.issues[0]!.message}`;
        ctx.addIssue({ code: 'custom', path: ['messages', body.messages.length - 1], message });
        return z.NEVER;
      }
      return {
        text: said,
        user_id: body.user_id,
        conversation_id: conversationId,
        message_id: body.message_id ?? uiId(last),
        parent_if_stored: uiId(body.messages.at(-2)),
      };
    });
}

/** What a chat request says, from either body (ours, or useChat's). */
interface ChatFields {
  text?: string;
  user_id: string;
  conversation_id?: string;
  message_id?: string;
  parent_id?: string | null;
  parent_if_stored?: string;
  regenerate?: string;
  temporary?: boolean;
}

export function chatInput(fields: ChatFields): ChatInput {
  return {
    text: fields.text,
    userId: fields.user_id,
    conversationId: fields.conversation_id,
    messageId: fields.message_id,
    parentId: fields.parent_id,
    parentIfStored: fields.parent_if_stored,
    regenerate: fields.regenerate,
    temporary: fields.temporary,
  };
}

/**
 * Reads a stream request. The protocol is the `X-Stream-Protocol` header (`events`, the
 * default, or `ui-message`); a useChat body (`messages` instead of `text`) defaults to
 * `ui-message`. Problems are ordinary 400s, raised before any event is sent.
 */
export function readStreamRequest(
  body: unknown,
  protocolHeader: string,
  schemas: RequestSchemas,
  uiSchema: ReturnType<typeof uiChatRequestSchema>,
): { input: ChatInput; protocol: StreamProtocol } {
  const requested = requestedStreamProtocol(protocolHeader);
  const isUiChat = isJsonObject(body) && 'messages' in body && !('text' in body);
  const parsed = isUiChat ? parseRequest(uiSchema, body) : parseRequest(schemas.chat, body);
  const protocol = requested ?? (isUiChat ? 'ui-message' : 'events');
  return {
    protocol,
    input: chatInput(parsed),
  };
}
