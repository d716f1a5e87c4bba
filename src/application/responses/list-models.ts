import type { ChatModel } from '../ports/chat-model.js';

/** GET /v1/models: the one model that answers, by its configured name, and since when it serves. */
export class ListModels {
  constructor(
    private readonly model: ChatModel,
    private readonly startedAt: Date,
  ) {}

  execute(): { id: string; createdAt: Date }[] {
    return [{ id: this.model.name ?? 'unknown', createdAt: this.startedAt }];
  }
}
