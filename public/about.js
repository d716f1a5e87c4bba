// The side panel's two lookups: the assistant's persona and the graph database's status.
import { describeError, getGraphStatus, getPersona } from './api.js';
import { ui } from './dom.js';
import { markPersonaLoaded, renderGraphChecking, renderGraphError, renderGraphStatus, renderPersona, renderPersonaError } from './render-about.js';
import { renameAssistant } from './render-messages.js';
import { state } from './state.js';

export async function loadPersona() {
  try {
    const persona = await getPersona();
    state.assistantName = persona.name;
    renderPersona(persona);
    renameAssistant(persona.name);
  } catch (error) {
    renderPersonaError(describeError(error));
  } finally {
    markPersonaLoaded();
  }
}

export async function loadGraphStatus() {
  ui.graphRefresh.disabled = true;
  renderGraphChecking();
  try {
    renderGraphStatus(await getGraphStatus());
  } catch (error) {
    renderGraphError(describeError(error));
  } finally {
    ui.graphRefresh.disabled = false;
  }
}
