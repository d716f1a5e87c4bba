import type { Row } from './report.js';
import type { BenchSettings } from './settings.js';

export interface SectionContext {
  settings: BenchSettings;
  /** A progress line (to stderr), not part of the report. */
  log(line: string): void;
}

/**
 * What a module in bench/sections/ exports. To add a section: write the module and list it in
 * bench/run.ts; its rows then join the table and its targets the closing block.
 */
export interface BenchSection {
  /** One line: what is measured, against what. */
  heading: string;
  /** True when the section needs PostgreSQL (the runner checks it is reachable first). */
  needsPostgres?: boolean;
  run(context: SectionContext): Promise<Row[]>;
}
