import { Container, type MapToResolvedValueInjectOptions, type ServiceIdentifier } from 'inversify';
import { ImportConversations } from '../application/transfer/import-conversations.js';
import { ExportConversation, ExportUser } from '../application/transfer/export-conversations.js';
import { StartTurn } from '../application/replies/start-turn.js';
import { ReplyFeed } from '../application/replies/reply-feed.js';
import { ReplyJobs } from '../application/replies/reply-jobs.js';
import { SpeechAudio } from '../application/services/speech-audio.js';
import { SpeechVoices } from '../application/services/speech-voices.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { DeleteMessages } from '../application/use-cases/delete-messages.js';
import { FindReplyInProgress } from '../application/replies/find-reply-in-progress.js';
import { GetGraphStatus } from '../application/use-cases/get-graph-status.js';
import { GetHealth } from '../application/use-cases/get-health.js';
import { GetPersona } from '../application/use-cases/get-persona.js';
import { ConversationTitles } from '../application/conversations/conversation-titles.js';
import { ListConversations } from '../application/conversations/list-conversations.js';
import { DeleteConversation, EraseUser, GetConversation, UpdateConversation } from '../application/conversations/manage-conversation.js';
import { SweepConversations, type Swept } from '../application/conversations/sweep-conversations.js';
import { ListSpeechVoices } from '../application/use-cases/list-speech-voices.js';
import { LoadMessages } from '../application/use-cases/load-messages.js';
import { ResumeChatReply } from '../application/replies/resume-chat-reply.js';
import { SaveMessage } from '../application/use-cases/save-message.js';
import { SaveSession } from '../application/use-cases/save-session.js';
import { SearchMessages } from '../application/use-cases/search-messages.js';
import { SendChatMessage } from '../application/replies/send-chat-message.js';
import { StopChatReply } from '../application/replies/stop-chat-reply.js';
import { SpeakReply } from '../application/use-cases/speak-reply.js';
import { StreamChatReply } from '../application/replies/stream-chat-reply.js';
import { SwitchBranch } from '../application/use-cases/switch-branch.js';
import { SynthesizeSpeech } from '../application/use-cases/synthesize-speech.js';
import { InstrumentedChatModel } from '../adapters/metrics/instrumented-chat-model.js';
import { InstrumentedSpeechCache, InstrumentedSpeechSynthesizer } from '../adapters/metrics/instrumented-speech.js';
import { Metrics } from '../adapters/metrics/metrics.js';
import { JsonFilePersonaSource } from '../adapters/persona/json-file-persona-source.js';
import { SystemClock } from '../adapters/system/system-clock.js';
import { UuidV7IdGenerator } from '../adapters/system/uuid-v7-id-generator.js';
import { LruSpeechCache } from '../adapters/tts/cache/lru-speech-cache.js';
import { LimitedSpeechSynthesizer } from '../adapters/tts/limited-speech-synthesizer.js';
import { chatModelFor } from './chat-model.js';
import type { Config } from './config.js';
import { openStore } from './database.js';
import { graphStatusProbeFor, modelHealthProbeFor, readinessChecks } from './dependencies.js';
import { identityFor } from './identity.js';
import { Lifetime } from './lifetime.js';
import { createLogger } from './logger.js';
import { VERSION } from './project-files.js';
import { checkSpeechVoices, speechSynthesizerFor, startSpeech } from './speech.js';
import { bindResponses } from './responses-bindings.js';
import { TOKENS, type AdapterOverrides } from './tokens.js';
import { startUsage } from './usage.js';
import { BatchedStoredReplies } from '../adapters/persistence/batched-stored-replies.js';
import { InMemoryUsageLedger } from '../adapters/persistence/memory/in-memory-usage-ledger.js';
import { GetUsage } from '../application/use-cases/get-usage.js';

/**
 * The composition root. Everything that takes time (connecting to and migrating the database,
 * warming up the speech engine, within TTS_WARMUP_MS, checking the configured voices) happens here, once, before this returns; afterwards every
 * binding is a ready value or a use case built on demand, so no order of `get` calls can fail.
 * Adapters are chosen once from config (or supplied by `overrides`) and are singletons; use
 * cases are transient, each bound once with the ports its constructor takes. What was opened
 * is closed by `TOKENS.Lifetime` on shutdown.
 */
export async function buildContainer(config: Config, overrides: AdapterOverrides = {}): Promise<Container> {
  const c = new Container({ defaultScope: 'Transient' });
  const lifetime = new Lifetime();
  try {
    await bindAdapters(c, config, overrides, lifetime);
  } catch (error) {
    await lifetime.close().catch(() => undefined);
    throw error;
  }
  bindApplication(c);
  return c;
}

async function bindAdapters(c: Container, config: Config, overrides: AdapterOverrides, lifetime: Lifetime): Promise<void> {
  const logger = overrides.logger ?? createLogger(config);
  const metrics = new Metrics();
  const clock = overrides.clock ?? new SystemClock();
  // Adapters that validate their settings (the persona file, say) fail here, before anything is opened.
  const personaSource = overrides.personaSource ?? new JsonFilePersonaSource(config.personaFile);
  const chatModel = new InstrumentedChatModel(overrides.chatModel ?? chatModelFor(config), metrics);
  const store = overrides.store ?? (await openStore(config, logger, metrics, lifetime));
  const graphStatusProbe = overrides.graphStatusProbe ?? lifetime.own(graphStatusProbeFor(config, logger, `assistant-backend/${VERSION}`));
  const speechSynthesizer = overrides.speechSynthesizer ?? speechSynthesizerFor(config.tts, lifetime);
  await startSpeech(speechSynthesizer, config.tts, logger);
  await checkSpeechVoices(speechSynthesizer, personaSource, config.tts, logger);
  const speechCache = overrides.speechCache ?? new LruSpeechCache(config.tts.cacheBytes);
  const identity = await identityFor(config.auth, logger);
  const usage = startUsage(config.limits, store.usage ?? new InMemoryUsageLedger(), clock, metrics, logger, lifetime);
  const dependencyChecks =
    overrides.dependencyChecks ??
    readinessChecks(config, { database: store.check, graph: graphStatusProbe, model: modelHealthProbeFor(config), identity: identity?.provider ?? null }, clock);

  const constant = <T>(token: ServiceIdentifier<T>, value: T) => c.bind<T>(token).toConstantValue(value);
  constant(TOKENS.Lifetime, lifetime);
  constant(TOKENS.Logger, logger);
  constant(TOKENS.Metrics, metrics);
  constant(TOKENS.Clock, clock);
  constant(TOKENS.IdGenerator, overrides.ids ?? new UuidV7IdGenerator());
  constant(TOKENS.UnitOfWork, store.unitOfWork);
  constant(TOKENS.ReplyNotifications, store.notifications);
  constant(TOKENS.StoredReplies, new BatchedStoredReplies(store.unitOfWork));
  constant(TOKENS.ReplySettings, config.replies);
  constant(TOKENS.PersonaSource, personaSource);
  constant(TOKENS.ChatModel, chatModel);
  constant(TOKENS.GraphStatusProbe, graphStatusProbe);
  constant(TOKENS.DependencyChecks, dependencyChecks);
  constant(TOKENS.CredentialVerifier, identity?.credentials ?? null);
  // Timed inside the limits: the metric is the engine's time, not the queue's.
  constant(TOKENS.SpeechSynthesizer, new LimitedSpeechSynthesizer(new InstrumentedSpeechSynthesizer(speechSynthesizer, metrics), config.tts));
  constant(TOKENS.SpeechCache, new InstrumentedSpeechCache(speechCache, metrics));
  constant(TOKENS.ChatLimits, config.chat);
  constant(TOKENS.ConversationSettings, config.conversations);
  // Counts only: which conversations were swept is nobody's business in the log.
  constant(TOKENS.OnSwept, (swept: Swept) => {
    metrics.conversationsSwept.inc({ reason: 'temporary' }, swept.temporary);
    metrics.conversationsSwept.inc({ reason: 'retention' }, swept.retained);
    logger.info({ sweptTemporary: swept.temporary, sweptRetained: swept.retained, sweptMessages: swept.messages }, 'swept expired conversations');
  });
  constant(TOKENS.TitleSettings, config.conversations.titles);
  constant(TOKENS.ReadinessTimeoutMs, config.readinessTimeoutMs);
  constant(TOKENS.StartedAt, new Date());
  constant(TOKENS.Version, VERSION);
  constant(TOKENS.UsageMeter, usage.meter);
  constant(TOKENS.UsageLimits, usage.limits);
}

/** Use cases, and the objects two of them share: one line each, naming what the constructor takes. */
function bindApplication(c: Container): void {
  const bind = <A extends unknown[], T>(type: new (...args: A) => T, dependencies: MapToResolvedValueInjectOptions<A>) =>
    c.bind(type).toResolvedValue((...args: A) => new type(...args), dependencies);

  bind(ReplyJobs, [TOKENS.UnitOfWork, TOKENS.ReplyNotifications, TOKENS.Clock, TOKENS.ReplySettings, TOKENS.UsageMeter]).inSingletonScope();
  bind(ReplyFeed, [ReplyJobs, TOKENS.StoredReplies, TOKENS.ReplyNotifications]).inSingletonScope();
  bind(ConversationTitles, [TOKENS.UnitOfWork, TOKENS.ChatModel, TOKENS.PersonaSource, TOKENS.TitleSettings, TOKENS.UsageMeter]).inSingletonScope();
  bind(StartTurn, [TOKENS.UnitOfWork, TOKENS.PersonaSource, TOKENS.Clock, TOKENS.IdGenerator, TOKENS.ChatLimits, ReplyJobs, ConversationTitles]).inSingletonScope();
  bind(SweepConversations, [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.ConversationSettings, TOKENS.OnSwept]).inSingletonScope();
  bind(SpeechVoices, [TOKENS.SpeechSynthesizer, TOKENS.PersonaSource]).inSingletonScope();
  bind(SpeechAudio, [TOKENS.SpeechSynthesizer, TOKENS.SpeechCache]).inSingletonScope();

  bind(SendChatMessage, [StartTurn, TOKENS.ChatModel, ReplyJobs, ReplyFeed]);
  bind(StreamChatReply, [StartTurn, TOKENS.ChatModel, ReplyJobs, ReplyFeed]);
  bind(ResumeChatReply, [TOKENS.StoredReplies, ReplyFeed, ReplyJobs]);
  bind(StopChatReply, [TOKENS.UnitOfWork, TOKENS.StoredReplies, ReplyJobs, ReplyFeed, TOKENS.Clock]);
  bind(FindReplyInProgress, [TOKENS.UnitOfWork, ReplyFeed, ReplyJobs]);
  bind(SaveMessage, [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.IdGenerator]);
  bind(LoadMessages, [TOKENS.UnitOfWork, ReplyJobs]);
  bind(DeleteMessages, [TOKENS.UnitOfWork]);
  bind(SaveSession, [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.IdGenerator]);
  bind(ListConversations, [TOKENS.UnitOfWork, TOKENS.ConversationSettings]);
  bind(GetConversation, [TOKENS.UnitOfWork, TOKENS.ConversationSettings]);
  bind(UpdateConversation, [TOKENS.UnitOfWork, TOKENS.ConversationSettings]);
  bind(DeleteConversation, [TOKENS.UnitOfWork, StopChatReply, TOKENS.SpeechCache]);
  bind(EraseUser, [TOKENS.UnitOfWork, StopChatReply, TOKENS.SpeechCache, TOKENS.UsageMeter]);
  bind(SwitchBranch, [TOKENS.UnitOfWork]);
  bind(SearchMessages, [TOKENS.UnitOfWork]);
  bind(ImportConversations, [TOKENS.UnitOfWork, TOKENS.IdGenerator]);
  bind(ExportConversation, [TOKENS.UnitOfWork, TOKENS.ConversationSettings]);
  bind(ExportUser, [TOKENS.UnitOfWork, TOKENS.ConversationSettings]);
  bind(GetHealth, [TOKENS.Clock, TOKENS.StartedAt, TOKENS.Version]);
  bind(CheckReadiness, [TOKENS.DependencyChecks, TOKENS.ReadinessTimeoutMs]);
  bind(GetPersona, [TOKENS.PersonaSource]);
  bind(GetGraphStatus, [TOKENS.GraphStatusProbe]);
  bind(SynthesizeSpeech, [TOKENS.UnitOfWork, SpeechVoices, SpeechAudio, TOKENS.UsageMeter]);
  bind(ListSpeechVoices, [SpeechVoices]);
  bind(SpeakReply, [SpeechVoices, SpeechAudio, TOKENS.UsageMeter]);
  bind(GetUsage, [TOKENS.UsageMeter, TOKENS.Clock]);
  bindResponses(bind);
}
