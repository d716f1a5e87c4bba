import { z } from 'zod';
import raw from './phrases.json' with { type: 'json' };

export interface ElizaRule {
  name: string;
  pattern: RegExp;
  replies: string[];
}

/** phrases.json, validated and with its patterns compiled. */
export interface ElizaPhrases {
  reflections: ReadonlyMap<string, string>;
  you: { asSubject: string; asObject: string; subjectAfter: ReadonlySet<string>; objectBefore: ReadonlySet<string> };
  intents: ElizaRule[];
  rules: ElizaRule[];
  memoryPattern: RegExp;
  memory: string[];
  fallbacks: string[];
  flourishes: string[];
  defaults: { description: string; descriptors: string; style: string };
}

export class ElizaPhrasesInvalidError extends Error {
  constructor(reason: string) {
    super(`offline chat model phrases are invalid: ${reason}`);
    this.name = 'ElizaPhrasesInvalidError';
  }
}

const text = z.string().trim().min(1);
const replies = z.array(text).min(1);
const rule = z.object({ name: text, pattern: text, replies });
const schema = z.object({
  reflections: z.record(z.string(), text),
  you: z.object({ asSubject: text, asObject: text, subjectAfter: z.array(text), objectBefore: z.array(text) }),
  intents: z.array(rule).min(1),
  rules: z.array(rule).min(1),
  memoryPattern: text,
  memory: replies,
  fallbacks: replies,
  flourishes: replies,
  defaults: z.object({ description: text, descriptors: text, style: text }),
});

const PERSONA_SLOTS = ['name', 'description', 'descriptors', 'style'];

function compile(source: string, where: string): RegExp {
  try {
    // Case-insensitive and stateless (no `g`), so one RegExp is safe to reuse across requests.
    return new RegExp(source, 'iu');
  } catch (error) {
    throw new ElizaPhrasesInvalidError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function groupCount(pattern: RegExp): number {
  return new RegExp(`${pattern.source}|`, pattern.flags).exec('')!.length - 1;
}

/**
 * A placeholder the responder cannot fill would reach the user verbatim ("{1}"), so every
 * template is checked here, at start-up, rather than discovered in a conversation.
 */
function checkSlots(templates: string[], allowed: string[], where: string): void {
  for (const template of templates) {
    for (const [, slot] of template.matchAll(/\{([^}]*)\}/g)) {
      if (!allowed.includes(slot!)) {
        throw new ElizaPhrasesInvalidError(`${where}: unknown placeholder {${slot}} in ${JSON.stringify(template)}`);
      }
    }
  }
}

function compileRules(rules: z.infer<typeof rule>[], section: string, allowCapture: boolean): ElizaRule[] {
  return rules.map((r, i) => {
    const where = `${section}[${i}] (${r.name})`;
    const pattern = compile(r.pattern, where);
    const slots = allowCapture && groupCount(pattern) >= 1 ? [...PERSONA_SLOTS, '1'] : PERSONA_SLOTS;
    checkSlots(r.replies, slots, where);
    return { name: r.name, pattern, replies: r.replies };
  });
}

export function parseElizaPhrases(input: unknown): ElizaPhrases {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ElizaPhrasesInvalidError(`${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const p = parsed.data;
  checkSlots(p.memory, [...PERSONA_SLOTS, 'memory'], 'memory');
  checkSlots(p.fallbacks, PERSONA_SLOTS, 'fallbacks');
  checkSlots(p.flourishes, PERSONA_SLOTS, 'flourishes');
  return {
    reflections: new Map(Object.entries(p.reflections).map(([k, v]) => [k.toLowerCase(), v])),
    you: {
      asSubject: p.you.asSubject,
      asObject: p.you.asObject,
      subjectAfter: new Set(p.you.subjectAfter.map((w) => w.toLowerCase())),
      objectBefore: new Set(p.you.objectBefore.map((w) => w.toLowerCase())),
    },
    intents: compileRules(p.intents, 'intents', false),
    rules: compileRules(p.rules, 'rules', true),
    memoryPattern: compile(p.memoryPattern, 'memoryPattern'),
    memory: p.memory,
    fallbacks: p.fallbacks,
    flourishes: p.flourishes,
    defaults: p.defaults,
  };
}

export const ELIZA_PHRASES: ElizaPhrases = parseElizaPhrases(raw);
