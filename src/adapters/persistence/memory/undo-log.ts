/** Undo steps recorded by the repositories of one transaction, played back if it fails. */
export class UndoLog {
  private readonly steps: (() => void)[] = [];

  record(step: () => void): void {
    this.steps.push(step);
  }

  rollback(): void {
    for (const step of this.steps.reverse()) step();
  }
}
