import type { CheckReadiness } from '../../application/use-cases/check-readiness.js';
import type { DeleteMessages } from '../../application/use-cases/delete-messages.js';
import type { GetGraphStatus } from '../../application/use-cases/get-graph-status.js';
import type { GetHealth } from '../../application/use-cases/get-health.js';
import type { GetPersona } from '../../application/use-cases/get-persona.js';
import type { ListConversations } from '../../application/use-cases/list-conversations.js';
import type { ListSpeechVoices } from '../../application/use-cases/list-speech-voices.js';
import type { LoadMessages } from '../../application/use-cases/load-messages.js';
import type { SaveMessage } from '../../application/use-cases/save-message.js';
import type { SaveSession } from '../../application/use-cases/save-session.js';
import type { SendChatMessage } from '../../application/use-cases/send-chat-message.js';
import type { SpeakReply } from '../../application/use-cases/speak-reply.js';
import type { StreamChatReply } from '../../application/use-cases/stream-chat-reply.js';
import type { SynthesizeSpeech } from '../../application/use-cases/synthesize-speech.js';

/** How routes reach use cases: a fresh one per request, resolved by the composition root. */
export interface UseCases {
  sendChatMessage(): SendChatMessage;
  streamChatReply(): StreamChatReply;
  saveMessage(): SaveMessage;
  loadMessages(): LoadMessages;
  deleteMessages(): DeleteMessages;
  saveSession(): SaveSession;
  listConversations(): ListConversations;
  getHealth(): GetHealth;
  checkReadiness(): CheckReadiness;
  getPersona(): GetPersona;
  getGraphStatus(): GetGraphStatus;
  synthesizeSpeech(): SynthesizeSpeech;
  listSpeechVoices(): ListSpeechVoices;
  speakReply(): SpeakReply;
}
