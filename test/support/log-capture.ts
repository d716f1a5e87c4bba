import type { Logger } from 'pino';
import { createLogger } from '../../src/bootstrap/logger.js';

/**
 * A logger as the service makes it (its redaction and error serializers), whose JSON lines
 * land in `lines`, for asserting on what was (not) logged.
 */
export function capturedLogger(level: 'debug' | 'info' | 'warn' | 'error' = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ logLevel: level, logFormat: 'json' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}
