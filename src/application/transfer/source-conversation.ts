import type { TitleSource } from '../../domain/conversation.js';
import type { Role } from '../../domain/message.js';
import { isJsonObject, type Metadata } from '../../domain/metadata.js';
import { isStorableInstant } from '../../domain/instants.js';

/** The formats an import reads, told apart by their shape. */
export const IMPORT_FORMATS = ['ndjson', 'chatgpt', 'claude'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A message as a file holds it, before it gets this service's ids. */
export interface SourceMessage {
  id: string;
  /** Its nearest kept ancestor in the file (null: a first message). */
  parentId: string | null;
  role: Role;
  text: string;
  createdAt: Date;
  metadata: Metadata;
}

/** A conversation as a file holds it: its kept messages, each after its parent. */
export interface SourceConversation {
  id: string;
  title: string | null;
  titleSource: TitleSource | null;
  createdAt: Date;
  /** Its last activity, when the file says. */
  activeAt: Date | null;
  pinned: boolean;
  archived: boolean;
  messages: SourceMessage[];
  /** The last message of the active branch (a kept one), or null for the last message. */
  headId: string | null;
  /** Messages left out because an earlier one in the file has the same id (counted as skipped). */
  duplicates: number;
}

/** One conversation of a file cannot be read: it is reported and skipped, the rest imported. */
export class ConversationUnreadableError extends Error {
  constructor(
    readonly conversation: string | null,
    detail: string,
  ) {
    super(detail);
  }
}

export type Json = Record<string, unknown>;
export const isObject: (value: unknown) => value is Json = isJsonObject;
export const stringOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);


/** A time given as Unix seconds (ChatGPT) or an ISO string (Claude, this service); null when it is none, or out of range. */
export function timeOrNull(value: unknown): Date | null {
  const date = typeof value === 'number' ? new Date(Math.round(value * 1000)) : typeof value === 'string' ? new Date(value) : null;
  const time = date?.getTime() ?? NaN;
  return !Number.isNaN(time) && isStorableInstant(time) ? date : null;
}

/** What a part that is not text becomes: a short placeholder (its kind goes in the metadata). */
export function placeholderFor(kind: string): string {
  if (/image/.test(kind)) return '[image]';
  if (/audio/.test(kind)) return '[audio]';
  if (/video/.test(kind)) return '[video]';
  if (/file|attachment|document/.test(kind)) return '[file]';
  if (kind === 'tool_use' || kind === 'tool_call') return '[tool call]';
  if (kind === 'tool_result') return '[tool result]';
  return `[${kind}]`;
}

interface Node {
  id: string;
  parentId: string | null;
  createdAt: Date;
}

/**
 * The kept nodes of a tree, each after its nearest kept ancestor (a skipped node's children move
 * up to it), parents first and siblings by time; a node whose parent is unknown starts a tree, and
 * so does the earliest node of a loop of parents (a file that is no tree: each node its own
 * ancestor), so nothing of it is lost. Also the nearest kept node at or above `head`.
 */
export function keptTree<T extends Node>(given: T[], kept: (node: T) => boolean, head: string | null): { nodes: T[]; headId: string | null; duplicates: number } {
  // An id given twice: the file's first message of that id is the one (a later one would overwrite it unseen).
  const byId = new Map<string, T>();
  for (const node of given) if (!byId.has(node.id)) byId.set(node.id, node);
  const all = byId.size === given.length ? given : [...byId.values()];
  const keep = new Set(all.filter(kept).map((node) => node.id));
  const keptAncestor = (from: string | null): string | null => {
    const seen = new Set<string>();
    for (let id = from; id !== null && !seen.has(id); id = byId.get(id)?.parentId ?? null) {
      if (keep.has(id)) return id;
      seen.add(id);
    }
    return null;
  };
  const children = new Map<string | null, T[]>();
  for (const node of all) {
    if (!keep.has(node.id)) continue;
    const parentId = keptAncestor(node.parentId);
    const placed = parentId === node.parentId ? node : { ...node, parentId };
    const list = children.get(parentId) ?? [];
    list.push(placed);
    children.set(parentId, list);
  }
  const nodes: T[] = [];
  const visited = new Set<string>();
  // Siblings by time, and those of equal times in the file's order (an export lists them so: the round trip keeps them so).
  const place = new Map(all.map((node, index) => [node.id, index]));
  const laterFirst = (a: Node, b: Node) => b.createdAt.getTime() - a.createdAt.getTime() || place.get(b.id)! - place.get(a.id)!;
  const walk = (roots: T[]) => {
    const stack = [...roots].sort(laterFirst);
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (visited.has(node.id)) continue;
      visited.add(node.id);
      nodes.push(node);
      // One by one: a node may have more children than a call takes arguments.
      for (const child of [...(children.get(node.id) ?? [])].sort(laterFirst)) stack.push(child);
    }
  };
  walk(children.get(null) ?? []);
  if (nodes.length < keep.size) {
    // What no root reaches hangs from a loop: its earliest node (the file's first, among equal times) starts a tree.
    for (const node of all.filter((n) => keep.has(n.id) && !visited.has(n.id)).sort((a, b) => -laterFirst(a, b))) {
      if (!visited.has(node.id)) walk([{ ...node, parentId: null }]);
    }
  }
  return { nodes, headId: keptAncestor(head), duplicates: given.length - all.length };
}
