import type { ChatRequest, HistoryTurn } from '../../../application/ports/chat-model.js';
import type { Persona } from '../../../domain/persona.js';
import { truncateCodePoints } from '../../../domain/text.js';
import { ELIZA_PHRASES, type ElizaPhrases } from './eliza-phrases.js';

// Bounds keep the reply short whatever the user sends, and keep regex work linear in a small input.
const MAX_INPUT = 2000;
const MAX_FRAGMENT = 120;
const MAX_MEMORY = 80;
const MAX_PERSONA_FIELD = 300;
export const MAX_REPLY = 600;

type Slots = Record<string, string>;

/** FNV-1a with a murmur finaliser: stable across runs and platforms, with well-mixed low bits. */
export function stableHash(input: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < input.length; i++) h = Math.imul(h ^ input.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Cuts at a word boundary when one is near, marking the cut so a clipped quote is not misread. */
export function clip(text: string, max: number): string {
  if (Array.from(text).length <= max) return text;
  let cut = truncateCodePoints(text, max - 3);
  const space = cut.lastIndexOf(' ');
  if (space > cut.length / 2) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:]+$/u, '')}...`;
}

function normalise(text: string): string {
  return text.replace(/[\u2018\u2019]/g, "'").replace(/\s+/gu, ' ').trim();
}

const WORD = /^(\P{L}*)(.*?)(\P{L}*)$/u;

/** Swaps first and second person ("my job" -> "your job"), keeping punctuation around each word. */
export function reflect(fragment: string, phrases: ElizaPhrases = ELIZA_PHRASES): string {
  const words = fragment.split(' ').filter((w) => w !== '');
  const parts = words.map((w) => WORD.exec(w)!);
  const core = (i: number): string => parts[i]?.[2]?.toLowerCase() ?? '';
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const [, lead = '', , trail = ''] = parts[i]!;
    const pair = phrases.reflections.get(`${core(i)} ${core(i + 1)}`);
    if (pair !== undefined) {
      out.push(lead + pair + (parts[i + 1]?.[3] ?? ''));
      i++;
      continue;
    }
    const clauseEnd = i === words.length - 1 || trail !== '';
    const swap =
      core(i) === 'you' ? reflectYou(core(i - 1), core(i + 1), clauseEnd, phrases) : phrases.reflections.get(core(i));
    out.push(swap === undefined ? words[i]! : lead + swap + trail);
  }
  return out.join(' ');
}

/**
 * "you" becomes "I" as a subject and "me" as an object. Without a parser, cheap tells decide:
 * last in its clause or before "to" ("want you to") is an object; a clause start is a subject.
 */
function reflectYou(before: string, after: string, clauseEnd: boolean, phrases: ElizaPhrases): string {
  const { asSubject, asObject, subjectAfter, objectBefore } = phrases.you;
  if (clauseEnd || objectBefore.has(after)) return asObject;
  return before === '' || subjectAfter.has(before) ? asSubject : asObject;
}

function fragment(captured: string, max: number, phrases: ElizaPhrases): string {
  return clip(reflect(captured.trim(), phrases), max).replace(/[\s,;:\-\u2013\u2014]+$/u, '');
}

function sentenceCase(text: string): string {
  // Lower-case a leading capital so the field reads inside a sentence, but leave acronyms alone.
  return /^(\p{Lu}\p{Ll}|A\s)/u.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

function personaSlots(persona: Persona, phrases: ElizaPhrases): Slots {
  const field = (value: string, fallback: string): string =>
    clip(normalise(value).replace(/[.!\s]+$/u, ''), MAX_PERSONA_FIELD) || fallback;
  const descriptors = persona.descriptors.map(normalise).filter((d) => d !== '');
  const last = descriptors.pop() ?? '';
  const listed = descriptors.length === 0 ? last : `${descriptors.join(', ')} and ${last}`;
  return {
    name: field(persona.name, 'your assistant'),
    description: sentenceCase(field(persona.description, phrases.defaults.description)),
    descriptors: clip(listed, MAX_PERSONA_FIELD) || phrases.defaults.descriptors,
    style: sentenceCase(field(persona.speakingStyle, phrases.defaults.style)),
  };
}

function fill(template: string, slots: Slots): string {
  return template.replace(/\{([^}]*)\}/g, (whole, slot: string) => slots[slot] ?? whole);
}

/** The latest earlier personal statement by the user, reflected, to come back to when nothing matches. */
function recall(history: HistoryTurn[], current: string, phrases: ElizaPhrases): string | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i]!;
    if (turn.role !== 'user') continue;
    const sentence = normalise(turn.text.slice(0, MAX_INPUT)).split(/[.!?]/u)[0]!.trim();
    if (sentence === '' || sentence === current || !phrases.memoryPattern.test(sentence)) continue;
    const recalled = fragment(sentence, MAX_MEMORY, phrases);
    if (recalled !== '') return sentenceCase(recalled);
  }
  return null;
}

function finish(reply: string): string {
  const text = clip(normalise(reply), MAX_REPLY);
  return text === '' ? 'Please, go on.' : text[0]!.toUpperCase() + text.slice(1);
}

/** The reply: a pure function of the request, so the same conversation always gets the same answer. */
export function elizaReply(request: ChatRequest, phrases: ElizaPhrases = ELIZA_PHRASES): string {
  const text = normalise(truncateCodePoints(request.text, MAX_INPUT));
  const seed = stableHash(`${request.text}\u0000${request.history.length}`);
  // Different bits of one seed, so the variant and the extras are not locked together.
  const pick = (list: string[], shift = 0): string => list[(seed >>> shift) % list.length]!;
  const slots = personaSlots(request.persona, phrases);

  for (const intent of phrases.intents) {
    if (intent.pattern.test(text)) return finish(fill(pick(intent.replies), slots));
  }
  let body: string | null = null;
  for (const rule of phrases.rules) {
    const match = rule.pattern.exec(text);
    if (match === null) continue;
    const captured = match[1] === undefined ? '' : fragment(match[1], MAX_FRAGMENT, phrases);
    // A capture of only spaces or punctuation would leave a hole in the template ("you are ?").
    if (match[1] !== undefined && captured === '') continue;
    body = fill(pick(rule.replies), { ...slots, '1': captured });
    break;
  }
  if (body === null) {
    const memory = (seed >>> 4) % 2 === 0 ? recall(request.history, text, phrases) : null;
    body = memory === null ? fill(pick(phrases.fallbacks), slots) : fill(pick(phrases.memory), { ...slots, memory });
  }
  if (request.persona.traits.extraversion >= 0.6 && (seed >>> 8) % 4 === 0) {
    body = `${body} ${fill(pick(phrases.flourishes, 12), slots)}`;
  }
  return finish(body);
}
