import { z } from 'zod';
import type { ChatInput } from '../../application/replies/start-turn.js';
import { requestedStreamProtocol, type StreamProtocol } from './chat-stream-encoders.js';
import { clientId, text, type RequestSchemas } from './schemas.js';
import { parseRequest } from './validate.js';

const optionalId = () =>
  clientId()
    .nullish()
    .transform((v) => v ?? undefined);

const LAST_MESSAGE = 'the last message must be a user message with text';

/**
 * The body `useChat` (Vercel AI SDK) sends by default: `{id, messages: [{role, parts}], ...}`
 * plus the fields its `body` option adds (`user_id`, optionally `conversation_id`). Only the
 * last user message is used; the stored conversation is the history the model sees.
 */
export function uiChatRequestSchema(maxTextLength: number) {
  const part = z.looseObject({ type: z.string(), text: z.string().optional() });
  const message = z.looseObject({ role: z.string(), parts: z.array(part, { error: 'must be an array of parts' }) });
  return z
    .object(
      {
        user_id: clientId(),
        conversation_id: optionalId(),
        message_id: optionalId(),
        /** useChat's chat id: the conversation, unless conversation_id says otherwise. */
        id: optionalId(),
        messages: z.array(message, { error: 'must be an array of UI messages' }).min(1, LAST_MESSAGE),
      },
      { error: 'must be a JSON object' },
    )
    .transform((body, ctx) => {
      const last = body.messages.at(-1)!;
      const said = last.parts.flatMap((p) => (p.type === 'text' && p.text !== undefined ? [p.text] : [])).join('\n');
      const checked = text(maxTextLength).safeParse(said);
      if (last.role !== 'user' || !checked.success) {
        const message = last.role !== 'user' || said === '' ? LAST_MESSAGE : `text ${checked.error!.issues[0]!.message}`;
        ctx.addIssue({ code: 'custom', path: ['messages', body.messages.length - 1], message });
        return z.NEVER;
      }
      return { text: said, user_id: body.user_id, conversation_id: body.conversation_id ?? body.id, message_id: body.message_id };
    });
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
  const isUiChat = typeof body === 'object' && body !== null && !Array.isArray(body) && 'messages' in body && !('text' in body);
  const parsed = isUiChat ? parseRequest(uiSchema, body) : parseRequest(schemas.chat, body);
  const protocol = requested ?? (isUiChat ? 'ui-message' : 'events');
  return {
    protocol,
    input: { text: parsed.text, userId: parsed.user_id, conversationId: parsed.conversation_id, messageId: parsed.message_id },
  };
}
