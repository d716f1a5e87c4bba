// Export and import: the user's conversations or the open one downloaded as a file, and a file
// uploaded to POST /api/users/{user_id}/import with its progress (the service reads the body as
// it stores it, so the upload's progress is the import's).
import { authHeaders } from './credentials.js';
import { ui } from './dom.js';
import { state } from './state.js';

/** @typedef {import('./api-types.js').ImportReport} ImportReport */

/** Downloads what `path` answers under its own file name (fetched, so the access token goes with it). @param {string} path */
async function download(path) {
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new Error(body && typeof body.detail === 'string' ? body.detail : `${response.status} ${response.statusText}`);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

/** @param {string} message */
const say = (message) => (ui.importStatus.textContent = message);

/** Every conversation of the user: `ndjson` or ChatGPT's shape. @param {'ndjson' | 'chatgpt'} format */
export async function exportAll(format) {
  if (!state.userId) return;
  say('Exporting…');
  try {
    await download(`api/users/${encodeURIComponent(state.userId)}/export?format=${format}`);
    say('Exported.');
  } catch (error) {
    say(`Export failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The open conversation: `json` (every branch) or `markdown` (the active one). @param {'json' | 'markdown'} format */
export async function exportConversation(format) {
  if (!state.userId || !state.conversationId) return;
  try {
    await download(`api/chat/conversations/${encodeURIComponent(state.conversationId)}/export?user_id=${encodeURIComponent(state.userId)}&format=${format}`);
  } catch (error) {
    ui.chatMeta.textContent = `Export failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Uploads the chosen file; `done` runs after a successful import (to list the conversations again). @param {() => void} done */
export function importChosenFile(done) {
  const file = ui.importFile.files?.[0];
  if (!state.userId || !file) return;
  const request = new XMLHttpRequest();
  request.open('POST', `api/users/${encodeURIComponent(state.userId)}/import`);
  for (const [name, value] of Object.entries(authHeaders())) request.setRequestHeader(name, value);
  // The file as it is (the service tells its format by its shape), whatever type the browser guessed from its name.
  request.setRequestHeader('content-type', 'application/octet-stream');
  ui.importProgress.hidden = false;
  ui.importProgress.value = 0;
  ui.importSubmit.disabled = true;
  say(`Importing ${file.name}…`);
  request.upload.addEventListener('progress', (event) => {
    if (event.lengthComputable) ui.importProgress.value = event.loaded / event.total;
  });
  request.addEventListener('loadend', () => {
    ui.importSubmit.disabled = false;
    ui.importProgress.value = 1;
    /** @type {(ImportReport & {detail?: string}) | null} */
    let body = null;
    try {
      body = JSON.parse(request.responseText);
    } catch {
      // not JSON: said below
    }
    if (request.status !== 200 || !body || body.status !== 'ok') {
      say(`Import failed: ${body?.detail ?? (request.status ? `${request.status} ${request.statusText}` : 'the connection broke')}`);
      return;
    }
    const { conversations, messages, errors } = body;
    const problems = errors.length ? ` ${errors.length} could not be read: ${errors.slice(0, 3).map((e) => e.detail).join('; ')}` : '';
    say(`Imported ${conversations.created} conversation(s), ${messages.created} message(s); ${conversations.skipped} already there.${problems}`);
    done();
  });
  request.send(file);
}

/** The buttons follow what the page has: a user for the user's export and the import, an open conversation for its own. */
export function updateTransferControls() {
  ui.exportNdjson.disabled = ui.exportChatGpt.disabled = !state.userId;
  ui.importSubmit.disabled = !state.userId || !ui.importFile.files?.length;
  // A temporary conversation is never exported (the service answers 404).
  ui.conversationExport.hidden = !state.userId || !state.conversationId || state.temporary;
}
