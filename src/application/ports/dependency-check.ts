export interface DependencyState {
  ok: boolean;
  /** An optional dependency that is not configured: reported, never a failure. */
  disabled?: boolean;
  /** Why it failed, or a short note such as "disabled"; never a secret. */
  detail?: string;
}

/** One dependency that readiness reports on. */
export interface DependencyCheck {
  readonly name: string;
  readonly required: boolean;
  check(): Promise<DependencyState>;
}
