import type { BindInWhenOnFluentSyntax, MapToResolvedValueInjectOptions } from 'inversify';
import { AddConversationItems } from '../application/responses/add-conversation-items.js';
import { CancelResponse } from '../application/responses/cancel-response.js';
import { ConversationItem } from '../application/responses/conversation-item.js';
import { CreateConversation } from '../application/responses/create-conversation.js';
import { CreateResponse } from '../application/responses/create-response.js';
import { DeleteResponse } from '../application/responses/delete-response.js';
import { EphemeralResponses } from '../application/responses/ephemeral-response.js';
import { ListConversationItems } from '../application/responses/list-conversation-items.js';
import { ListInputItems } from '../application/responses/list-input-items.js';
import { ListModels } from '../application/responses/list-models.js';
import { RemoveConversation } from '../application/responses/remove-conversation.js';
import { RetrieveConversation } from '../application/responses/retrieve-conversation.js';
import { RetrieveResponse } from '../application/responses/retrieve-response.js';
import { ReplyFeed } from '../application/replies/reply-feed.js';
import { ReplyJobs } from '../application/replies/reply-jobs.js';
import { StartTurn } from '../application/replies/start-turn.js';
import { StopChatReply } from '../application/replies/stop-chat-reply.js';
import { TOKENS } from './tokens.js';

type Bind = <A extends unknown[], T>(type: new (...args: A) => T, dependencies: MapToResolvedValueInjectOptions<A>) => BindInWhenOnFluentSyntax<T>;

/** The use cases of OpenAI's Responses and Conversations APIs (src/application/responses/), one line each as in bindApplication. */
export function bindResponses(bind: Bind): void {
  bind(EphemeralResponses, [TOKENS.UnitOfWork, TOKENS.PersonaSource, TOKENS.ChatModel, TOKENS.Clock, TOKENS.IdGenerator, TOKENS.ChatLimits, TOKENS.UsageMeter]);
  bind(CreateResponse, [TOKENS.UnitOfWork, StartTurn, TOKENS.ChatModel, ReplyJobs, ReplyFeed, EphemeralResponses]);
  bind(RetrieveResponse, [TOKENS.UnitOfWork, ReplyFeed]);
  bind(CancelResponse, [TOKENS.UnitOfWork, StopChatReply]);
  bind(DeleteResponse, [TOKENS.UnitOfWork, StopChatReply]);
  bind(ListInputItems, [TOKENS.UnitOfWork]);
  bind(CreateConversation, [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.IdGenerator]);
  bind(RetrieveConversation, [TOKENS.UnitOfWork]);
  bind(RemoveConversation, [TOKENS.UnitOfWork, StopChatReply, TOKENS.SpeechCache]);
  bind(ListConversationItems, [TOKENS.UnitOfWork]);
  bind(AddConversationItems, [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.IdGenerator]);
  bind(ConversationItem, [TOKENS.UnitOfWork]);
  bind(ListModels, [TOKENS.ChatModel, TOKENS.StartedAt]);
}
