import { Conversation } from '../../src/domain/conversation.js';
import type { Message } from '../../src/domain/message.js';
import type { ReplyNotifications } from '../../src/application/ports/reply-notifications.js';
import type { Repositories, UnitOfWork } from '../../src/application/ports/unit-of-work.js';

/** One store under test: a unit of work over it, and how to release it. */
export interface StoreFixture {
  unitOfWork: UnitOfWork;
  /** Where the store announces writes to replies (and carries stop requests). */
  notifications?: ReplyNotifications;
  close(): Promise<void>;
}

export type MakeStore = () => Promise<StoreFixture>;

/** Runs a contract suite's test body in one transaction of a fresh fixture. */
export function withStore(make: MakeStore) {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await make();
  });
  afterEach(async () => {
    await fixture.close();
  });
  return {
    run: <T>(work: (repositories: Repositories) => Promise<T>): Promise<T> => fixture.unitOfWork.run(work),
    get unitOfWork(): UnitOfWork {
      return fixture.unitOfWork;
    },
    get notifications(): ReplyNotifications | undefined {
      return fixture.notifications;
    },
  };
}

/** Stores the conversation (with its user) through the port, and returns it as stored. */
export async function claimed(r: Repositories, conversation: Conversation): Promise<Conversation> {
  return (await r.messages.append(conversation, [])).conversation ?? conversation;
}

/** The conversation a message belongs to, as a candidate to append to (the store keeps the first creation time). */
export function conversationOf(message: Message): Conversation {
  return Conversation.create({ conversationId: message.conversationId, userId: message.userId, createdAt: message.createdAt });
}
