/**
 * The requests the load is made of, the same for every server compared: spread over many
 * conversations (each owned by one of a quarter as many users), every body different.
 */
const SENTENCES = [
  'Hello! Who are you?',
  'I feel tired today, work was long.',
  'My sister thinks I should change jobs because my boss never listens.',
  'Can you help me plan a trip to the mountains next month?',
  'I remember when we used to walk by the river every evening.',
  'Why do I always leave everything to the last minute?',
  'Thanks, that was helpful.',
  'What do you think about learning to play the piano at my age?',
];

export const userOf = (conversation: number, conversations: number) => `bench-user-${conversation % Math.max(1, Math.floor(conversations / 4))}`;

/** saveMessage: a new message (a client-chosen id, as idempotent clients send) in one of the `write-` conversations. */
export function saveMessageBody(conversations: number) {
  return (n: number) => {
    const k = n % conversations;
    return {
      user_id: userOf(k, conversations),
      conversation_id: `write-${k}`,
      message_id: `write-${k}-${n}`,
      role: n % 2 === 0 ? 'user' : 'assistant',
      text: `${SENTENCES[n % SENTENCES.length]} (${n})`,
      metadata: { source: 'bench', n },
    };
  };
}

/** loadMessages: the first page of 50 of one of the seeded `read-` conversations, both orders. */
export function loadMessagesBody(conversations: number) {
  return (n: number) => {
    const k = n % conversations;
    return { user_id: userOf(k, conversations), conversation_id: `read-${k}`, limit: 50, order: n % 2 === 0 ? 'asc' : 'desc' };
  };
}

/** /v1/chat: the next turn of one of the `chat-` conversations (the first turn creates it). */
export function chatBody(conversations: number) {
  return (n: number) => {
    const k = n % conversations;
    return { user_id: userOf(k, conversations), conversation_id: `chat-${k}`, text: `${SENTENCES[n % SENTENCES.length]} (${n})` };
  };
}

/** Messages in each seeded `read-` conversation: more than one page. */
export const READ_CONVERSATION_MESSAGES = 120;
