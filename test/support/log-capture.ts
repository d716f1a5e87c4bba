import { pino, type Logger } from 'pino';

/** A pino logger whose JSON lines land in `lines`, for asserting on what was (not) logged. */
export function capturedLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}
