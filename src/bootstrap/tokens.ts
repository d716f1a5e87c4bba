import type { ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import type { ChatModel } from '../application/ports/chat-model.js';
import type { Clock } from '../application/ports/clock.js';
import type { DependencyCheck } from '../application/ports/dependency-check.js';
import type { GraphStatusProbe } from '../application/ports/graph-status-probe.js';
import type { IdGenerator } from '../application/ports/id-generator.js';
import type { PersonaSource } from '../application/ports/persona-source.js';
import type { ReplyNotifications } from '../application/ports/reply-notifications.js';
import type { StoredReplies } from '../application/ports/stored-replies.js';
import type { SpeechCache } from '../application/ports/speech-cache.js';
import type { SpeechSynthesizer } from '../application/ports/speech-synthesizer.js';
import type { UnitOfWork } from '../application/ports/unit-of-work.js';
import type { ReplySettings } from '../application/replies/reply-job.js';
import type { ChatLimits } from '../application/chat-limits.js';
import type { TitleSettings } from '../application/conversations/conversation-titles.js';
import type { ConversationSettings, Swept } from '../application/conversations/sweep-conversations.js';
import type { Metrics } from '../adapters/metrics/metrics.js';
import type { CredentialVerifier } from '../adapters/identity/credentials.js';
import type { UsageLedger } from '../application/ports/usage-ledger.js';
import type { UsageLimits } from '../application/usage/usage-limits.js';
import type { UsageMeter } from '../application/usage/usage-meter.js';
import type { Lifetime } from './lifetime.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`assistant.${name}`);

/** The container's names for ports, settings and shared objects (classes are their own names). */
export const TOKENS = {
  Logger: token<Logger>('Logger'),
  Metrics: token<Metrics>('Metrics'),
  Lifetime: token<Lifetime>('Lifetime'),
  ChatLimits: token<ChatLimits>('ChatLimits'),
  ConversationSettings: token<ConversationSettings>('ConversationSettings'),
  TitleSettings: token<TitleSettings>('TitleSettings'),
  OnSwept: token<(swept: Swept) => void>('OnSwept'),
  ReplySettings: token<ReplySettings>('ReplySettings'),
  ReadinessTimeoutMs: token<number>('ReadinessTimeoutMs'),
  StartedAt: token<Date>('StartedAt'),
  Version: token<string>('Version'),
  Clock: token<Clock>('Clock'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  UnitOfWork: token<UnitOfWork>('UnitOfWork'),
  ReplyNotifications: token<ReplyNotifications>('ReplyNotifications'),
  StoredReplies: token<StoredReplies>('StoredReplies'),
  ChatModel: token<ChatModel>('ChatModel'),
  PersonaSource: token<PersonaSource>('PersonaSource'),
  GraphStatusProbe: token<GraphStatusProbe>('GraphStatusProbe'),
  DependencyChecks: token<DependencyCheck[]>('DependencyChecks'),
  /** The bearer credentials accepted, or null when identity is off (AUTH_MODE=none). */
  CredentialVerifier: token<CredentialVerifier | null>('CredentialVerifier'),
  SpeechSynthesizer: token<SpeechSynthesizer>('SpeechSynthesizer'),
  SpeechCache: token<SpeechCache>('SpeechCache'),
  /** What each user consumed, counted here and sent to the store in batches. */
  UsageMeter: token<UsageMeter>('UsageMeter'),
  /** The gate of the limited endpoints (counts their requests; refuses those over a limit). */
  UsageLimits: token<UsageLimits>('UsageLimits'),
} as const;

/** Adapters a caller (a test, say) may supply instead of the configured ones; the caller closes them. */
export interface AdapterOverrides {
  clock?: Clock;
  ids?: IdGenerator;
  /** The whole store: its unit of work and the notices of its replies (and its readiness check). */
  store?: { unitOfWork: UnitOfWork; notifications: ReplyNotifications; check: DependencyCheck; usage?: UsageLedger };
  chatModel?: ChatModel;
  personaSource?: PersonaSource;
  graphStatusProbe?: GraphStatusProbe;
  dependencyChecks?: DependencyCheck[];
  speechSynthesizer?: SpeechSynthesizer;
  speechCache?: SpeechCache;
  logger?: Logger;
}
