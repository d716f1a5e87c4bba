import { readFileSync } from 'node:fs';
import { Container, type ServiceIdentifier } from 'inversify';
import { ChatTurns } from '../application/services/chat-turns.js';
import { SpeechAudio } from '../application/services/speech-audio.js';
import { SpeechVoices } from '../application/services/speech-voices.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { DeleteMessages } from '../application/use-cases/delete-messages.js';
import { GetGraphStatus } from '../application/use-cases/get-graph-status.js';
import { GetHealth } from '../application/use-cases/get-health.js';
import { GetPersona } from '../application/use-cases/get-persona.js';
import { ListConversations } from '../application/use-cases/list-conversations.js';
import { ListSpeechVoices } from '../application/use-cases/list-speech-voices.js';
import { LoadMessages } from '../application/use-cases/load-messages.js';
import { SaveMessage } from '../application/use-cases/save-message.js';
import { SaveSession } from '../application/use-cases/save-session.js';
import { SendChatMessage } from '../application/use-cases/send-chat-message.js';
import { SpeakReply } from '../application/use-cases/speak-reply.js';
import { StreamChatReply } from '../application/use-cases/stream-chat-reply.js';
import { SynthesizeSpeech } from '../application/use-cases/synthesize-speech.js';
import { LruSpeechCache } from '../adapters/tts/cache/lru-speech-cache.js';
import { LimitedSpeechSynthesizer } from '../adapters/tts/limited-speech-synthesizer.js';
import { closeSpeechSynthesizer, speechSynthesizerFor } from './speech.js';
import type { UseCases } from '../adapters/http/use-cases.js';
import { chatModelFor } from './chat-model.js';
import { InMemoryUnitOfWork } from '../adapters/persistence/memory/in-memory-unit-of-work.js';
import { InstrumentedChatModel } from '../adapters/metrics/instrumented-chat-model.js';
import { InstrumentedSpeechCache, InstrumentedSpeechSynthesizer } from '../adapters/metrics/instrumented-speech.js';
import { Metrics } from '../adapters/metrics/metrics.js';
import { poolState } from '../adapters/persistence/mikro-orm/database.js';
import { createLogger } from './logger.js';
import { MikroOrmUnitOfWork } from '../adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { databaseCheck, openMigratedDatabase } from './database.js';
import { closeGraphStatusProbe, graphStatusProbeFor, modelHealthProbeFor, readinessChecks } from './dependencies.js';
import { JsonFilePersonaSource } from '../adapters/persona/json-file-persona-source.js';
import { SystemClock } from '../adapters/system/system-clock.js';
import { UuidV7IdGenerator } from '../adapters/system/uuid-v7-id-generator.js';
import type { Config } from './config.js';
import { TOKENS, type AdapterOverrides } from './tokens.js';

const packageFile = new URL('../../package.json', import.meta.url);
export const VERSION: string = JSON.parse(readFileSync(packageFile, 'utf8')).version;

/**
 * The composition root. Adapters are singletons chosen once from config (or supplied by
 * `overrides`); use cases are transient and built by hand from their ports, so application
 * code carries no container decorators.
 */
export function buildContainer(config: Config, overrides: AdapterOverrides = {}): Container {
  const c = new Container({ defaultScope: 'Transient' });
  const constant = <T>(id: ServiceIdentifier<T>, value: T) => c.bind(id).toConstantValue(value);
  const single = <T>(id: ServiceIdentifier<T>, make: () => T) => c.bind(id).toDynamicValue(make).inSingletonScope();

  constant(TOKENS.Config, config);
  constant(TOKENS.ChatSettings, config.chat);
  constant(TOKENS.StartedAt, new Date());
  single(TOKENS.Logger, () => overrides.logger ?? createLogger(config));
  single(TOKENS.Metrics, () => {
    const metrics = new Metrics();
    const orm = c.get(TOKENS.Database);
    if (orm) metrics.watchDatabasePool(() => poolState(orm));
    return metrics;
  });
  single(TOKENS.Clock, () => overrides.clock ?? new SystemClock());
  single(TOKENS.IdGenerator, () => overrides.ids ?? new UuidV7IdGenerator());
  c.bind(TOKENS.Database)
    .toDynamicValue(async () => (config.database ? openMigratedDatabase(config.database, c.get(TOKENS.Logger)) : null))
    .inSingletonScope()
    .onDeactivation(async (orm) => orm?.close(true));
  single(TOKENS.UnitOfWork, () => {
    const orm = c.get(TOKENS.Database);
    return overrides.unitOfWork ?? (orm ? new MikroOrmUnitOfWork(orm) : new InMemoryUnitOfWork());
  });
  single(TOKENS.PersonaSource, () => overrides.personaSource ?? new JsonFilePersonaSource(config.personaFile));
  single(TOKENS.ChatModel, () => new InstrumentedChatModel(overrides.chatModel ?? chatModelFor(config), c.get(TOKENS.Metrics)));
  c.bind(TOKENS.GraphStatusProbe)
    .toDynamicValue(() => overrides.graphStatusProbe ?? graphStatusProbeFor(config, c.get(TOKENS.Logger), `assistant-backend/${VERSION}`))
    .inSingletonScope()
    .onDeactivation(closeGraphStatusProbe);
  single(TOKENS.DependencyChecks, () =>
    overrides.dependencyChecks ??
    readinessChecks(
      config,
      { database: databaseCheck(c.get(TOKENS.Database)), graph: c.get(TOKENS.GraphStatusProbe), model: modelHealthProbeFor(config) },
      c.get(TOKENS.Clock),
    ),
  );

  const get = <T>(id: ServiceIdentifier<T>): T => c.get(id);
  single(ChatTurns, () => new ChatTurns(get(TOKENS.UnitOfWork), get(TOKENS.PersonaSource), get(TOKENS.Clock), get(TOKENS.IdGenerator), get(TOKENS.ChatSettings)));
  c.bind(SendChatMessage).toDynamicValue(() => new SendChatMessage(get(ChatTurns), get(TOKENS.ChatModel)));
  c.bind(StreamChatReply).toDynamicValue(() => new StreamChatReply(get(ChatTurns), get(TOKENS.ChatModel)));
  c.bind(SaveMessage).toDynamicValue(() => new SaveMessage(get(TOKENS.UnitOfWork), get(TOKENS.Clock), get(TOKENS.IdGenerator)));
  c.bind(LoadMessages).toDynamicValue(() => new LoadMessages(get(TOKENS.UnitOfWork)));
  c.bind(DeleteMessages).toDynamicValue(() => new DeleteMessages(get(TOKENS.UnitOfWork)));
  c.bind(SaveSession).toDynamicValue(() => new SaveSession(get(TOKENS.UnitOfWork), get(TOKENS.Clock), get(TOKENS.IdGenerator)));
  c.bind(ListConversations).toDynamicValue(() => new ListConversations(get(TOKENS.UnitOfWork)));
  c.bind(GetHealth).toDynamicValue(() => new GetHealth(get(TOKENS.Clock), get(TOKENS.StartedAt), VERSION));
  c.bind(CheckReadiness).toDynamicValue(() => new CheckReadiness(get(TOKENS.DependencyChecks), config.readinessTimeoutMs));
  c.bind(GetPersona).toDynamicValue(() => new GetPersona(get(TOKENS.PersonaSource)));
  c.bind(GetGraphStatus).toDynamicValue(() => new GetGraphStatus(get(TOKENS.GraphStatusProbe)));

  // Text to speech: the engine's workers stop with the container (unless a caller supplied the engine).
  c.bind(TOKENS.SpeechSynthesizer)
    .toDynamicValue(() => overrides.speechSynthesizer ?? speechSynthesizerFor(config.tts))
    .inSingletonScope()
    .onDeactivation((engine) => (overrides.speechSynthesizer ? undefined : closeSpeechSynthesizer(engine)));
  single(TOKENS.SpeechCache, () => overrides.speechCache ?? new LruSpeechCache(config.tts.cacheBytes));
  single(SpeechVoices, () => new SpeechVoices(get(TOKENS.SpeechSynthesizer), get(TOKENS.PersonaSource)));
  single(SpeechAudio, () => {
    const metrics = get(TOKENS.Metrics);
    // Timed inside the limits: the metric is the engine's time, not the queue's.
    const engine = new LimitedSpeechSynthesizer(new InstrumentedSpeechSynthesizer(get(TOKENS.SpeechSynthesizer), metrics), config.tts);
    return new SpeechAudio(engine, new InstrumentedSpeechCache(get(TOKENS.SpeechCache), metrics));
  });
  c.bind(SynthesizeSpeech).toDynamicValue(() => new SynthesizeSpeech(get(TOKENS.UnitOfWork), get(SpeechVoices), get(SpeechAudio)));
  c.bind(ListSpeechVoices).toDynamicValue(() => new ListSpeechVoices(get(SpeechVoices)));
  c.bind(SpeakReply).toDynamicValue(() => new SpeakReply(get(SpeechVoices), get(SpeechAudio)));
  return c;
}

/** The use cases the HTTP adapter calls, each resolved afresh per request. */
export function useCasesFrom(c: Container): UseCases {
  return {
    sendChatMessage: () => c.get(SendChatMessage),
    streamChatReply: () => c.get(StreamChatReply),
    saveMessage: () => c.get(SaveMessage),
    loadMessages: () => c.get(LoadMessages),
    deleteMessages: () => c.get(DeleteMessages),
    saveSession: () => c.get(SaveSession),
    listConversations: () => c.get(ListConversations),
    getHealth: () => c.get(GetHealth),
    checkReadiness: () => c.get(CheckReadiness),
    getPersona: () => c.get(GetPersona),
    getGraphStatus: () => c.get(GetGraphStatus),
    synthesizeSpeech: () => c.get(SynthesizeSpeech),
    listSpeechVoices: () => c.get(ListSpeechVoices),
    speakReply: () => c.get(SpeakReply),
  };
}
