import type { ServiceIdentifier } from 'inversify';
import type { ChatModel } from '../application/ports/chat-model.js';
import type { Clock } from '../application/ports/clock.js';
import type { DependencyCheck } from '../application/ports/dependency-check.js';
import type { GraphStatusProbe } from '../application/ports/graph-status-probe.js';
import type { IdGenerator } from '../application/ports/id-generator.js';
import type { PersonaSource } from '../application/ports/persona-source.js';
import type { SpeechCache } from '../application/ports/speech-cache.js';
import type { SpeechSynthesizer } from '../application/ports/speech-synthesizer.js';
import type { UnitOfWork } from '../application/ports/unit-of-work.js';
import type { ChatSettings } from '../application/settings.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Metrics } from '../adapters/metrics/metrics.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`assistant.${name}`);

export const TOKENS = {
  Config: token<Config>('Config'),
  Logger: token<Logger>('Logger'),
  ChatSettings: token<ChatSettings>('ChatSettings'),
  StartedAt: token<Date>('StartedAt'),
  Clock: token<Clock>('Clock'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  UnitOfWork: token<UnitOfWork>('UnitOfWork'),
  ChatModel: token<ChatModel>('ChatModel'),
  PersonaSource: token<PersonaSource>('PersonaSource'),
  GraphStatusProbe: token<GraphStatusProbe>('GraphStatusProbe'),
  DependencyChecks: token<DependencyCheck[]>('DependencyChecks'),
  SpeechSynthesizer: token<SpeechSynthesizer>('SpeechSynthesizer'),
  SpeechCache: token<SpeechCache>('SpeechCache'),
  /** The MikroORM instance when DATABASE_URL is set, else null; resolved once, asynchronously, at start. */
  Database: token<MikroORM | null>('Database'),
  Metrics: token<Metrics>('Metrics'),
} as const;

/** Adapters a caller (a test, say) may supply instead of the configured ones. */
export interface AdapterOverrides {
  clock?: Clock;
  ids?: IdGenerator;
  unitOfWork?: UnitOfWork;
  chatModel?: ChatModel;
  personaSource?: PersonaSource;
  graphStatusProbe?: GraphStatusProbe;
  dependencyChecks?: DependencyCheck[];
  speechSynthesizer?: SpeechSynthesizer;
  speechCache?: SpeechCache;
  logger?: Logger;
}
