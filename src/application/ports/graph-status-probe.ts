export type GraphStatus =
  | { state: 'connected'; serverVersion: string; latencyMs: number }
  | { state: 'disabled'; detail: string }
  | { state: 'unreachable'; detail: string };

/** Checks the graph database connection, always within its configured time-out. */
export interface GraphStatusProbe {
  check(): Promise<GraphStatus>;
}
