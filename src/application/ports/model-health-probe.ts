import type { DependencyState } from './dependency-check.js';

/** A cheap question to a remote language model's server: is it there, and does it accept our key? */
export interface ModelHealthProbe {
  ping(): Promise<DependencyState>;
}
