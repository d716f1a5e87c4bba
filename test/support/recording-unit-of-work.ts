import type { Repositories } from '../../src/application/ports/unit-of-work.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';

/** The in-memory store, recording the ids each `messages.findByIds` asked for, in order. */
export class ReadsRecordingUnitOfWork extends InMemoryUnitOfWork {
  readonly reads: string[][] = [];

  override run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return super.run((repositories) => {
      const messages = repositories.messages;
      const recording: Repositories['messages'] = Object.create(messages);
      recording.findByIds = (ids) => {
        this.reads.push([...ids]);
        return messages.findByIds(ids);
      };
      return work({ ...repositories, messages: recording });
    });
  }
}
