import { conversationImportContract } from './conversation-import.contract.js';
import { conversationRepositoryContract } from './conversation-repository.contract.js';
import { messageRepositoryContract } from './message-repository.contract.js';
import { messageTreeContract } from './message-tree.contract.js';
import { messageSearchContract } from './message-search.contract.js';
import { sessionRepositoryContract } from './session-repository.contract.js';
import { replyNotificationsContract } from './reply-notifications.contract.js';
import { replyRepositoryContract } from './reply-repository.contract.js';
import { responseRepositoryContract } from './response-repository.contract.js';
import type { MakeStore } from './store-fixture.js';
import { unitOfWorkContract } from './unit-of-work.contract.js';

/** Every repository port's contract, for one store. */
export function storeContracts(make: MakeStore): void {
  conversationRepositoryContract(make);
  messageRepositoryContract(make);
  messageTreeContract(make);
  messageSearchContract(make);
  conversationImportContract(make);
  sessionRepositoryContract(make);
  replyRepositoryContract(make);
  responseRepositoryContract(make);
  replyNotificationsContract(make);
  unitOfWorkContract(make);
}
