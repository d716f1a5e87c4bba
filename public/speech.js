// "Speak replies": the spoken sentences a reply's stream carries (`event: audio`, one whole file
// each), played one after another in the order they came. Each clip is an <audio> of its own
// (not in the page) from a blob: URL, which is let go as soon as the clip is done with.

/** @typedef {import('./api-types.js').StreamAudio} StreamAudio */

const SPEAK_KEY = 'assistant-demo.speak';
const TYPES = /** @type {Record<string, string>} */ ({ mp3: 'audio/mpeg', wav: 'audio/wav' });

/** @typedef {{url: string, item: HTMLElement}} Clip */

/** @type {Clip[]} */
const queue = [];
/** @type {{clip: Clip, audio: HTMLAudioElement} | null} */
let playing = null;

/** Whether replies are spoken (kept in localStorage; off unless chosen). */
export function speakingChosen() {
  try {
    return localStorage.getItem(SPEAK_KEY) === 'on';
  } catch {
    return false;
  }
}

/** @param {boolean} on */
export function chooseSpeaking(on) {
  try {
    localStorage.setItem(SPEAK_KEY, on ? 'on' : 'off');
  } catch {
    // storage disabled: the choice lasts until the page is left
  }
  if (!on) stopSpeaking();
}

/** @param {string} base64 */
function bytesOf(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Queues one spoken sentence of the reply shown by `item`; it plays once those before it have.
 * A frame with no audio (or audio that is not base64) is skipped.
 * @param {StreamAudio} frame @param {HTMLElement} item
 */
export function queueSpeech(frame, item) {
  if (!frame.audio) return;
  let bytes;
  try {
    bytes = bytesOf(frame.audio);
  } catch {
    return;
  }
  const blob = new Blob([bytes], { type: TYPES[frame.format] ?? 'application/octet-stream' });
  queue.push({ url: URL.createObjectURL(blob), item });
  if (!playing) playNext();
}

function playNext() {
  const clip = queue.shift();
  if (!clip) {
    playing = null;
    return;
  }
  const audio = new Audio(clip.url);
  playing = { clip, audio };
  pausePlayers();
  clip.item.dataset.speaking = 'true';
  const next = () => {
    if (playing?.audio !== audio) return; // stopped meanwhile
    finish(clip);
    playNext();
  };
  audio.addEventListener('ended', next, { once: true });
  audio.addEventListener('error', next, { once: true });
  // Refused (the browser wants a gesture first, say): this clip is skipped, not the rest.
  audio.play().catch(next);
}

/** @param {Clip} clip */
function finish(clip) {
  URL.revokeObjectURL(clip.url);
  if (!queue.some((queued) => queued.item === clip.item)) delete clip.item.dataset.speaking;
}

/** One voice at a time: every message's player but `except` pauses. @param {HTMLAudioElement | null} [except] */
export function pausePlayers(except = null) {
  for (const player of document.querySelectorAll('audio.message__audio')) {
    if (player instanceof HTMLAudioElement && player !== except) player.pause();
  }
}

/** Silence: the clip playing stops and those waiting are dropped. */
export function stopSpeaking() {
  const current = playing;
  playing = null;
  if (current) {
    current.audio.pause();
    current.audio.removeAttribute('src');
    finish(current.clip);
  }
  for (const clip of queue.splice(0)) finish(clip);
}
