// The side panel about the assistant as DOM, text only: its persona and the graph database's status.
import { element, ui } from './dom.js';

/** @typedef {import('./api-types.js').Persona} Persona */
/** @typedef {import('./api-types.js').GraphStatus} GraphStatus */

/** @param {Persona} persona */
export function renderPersona(persona) {
  ui.personaName.textContent = persona.name;
  ui.personaDescription.textContent = persona.description;
  ui.personaTraits.replaceChildren();
  for (const [trait, score] of Object.entries(persona.traits ?? {})) {
    const row = element('div', { class: 'trait' });
    const id = `trait-${trait}`;
    const term = element('dt', { id }, trait.charAt(0).toUpperCase() + trait.slice(1));
    const value = Number(score);
    const meter = element('meter', { min: '0', max: '1', value: String(value), 'aria-labelledby': id });
    const definition = element('dd');
    definition.append(meter, element('span', { class: 'trait__value' }, value.toFixed(2)));
    row.append(term, definition);
    ui.personaTraits.append(row);
  }
  ui.personaDescriptors.replaceChildren(...(persona.descriptors ?? []).map((descriptor) => element('li', {}, descriptor)));
  ui.personaStyle.textContent = persona.speaking_style ? `Speaking style: ${persona.speaking_style}` : '';
}

/** @param {string} detail */
export function renderPersonaError(detail) {
  ui.personaName.textContent = 'unknown';
  ui.personaDescription.textContent = `Could not load the persona: ${detail}`;
}

/** The persona's section is no longer waiting (the markup starts it aria-busy). */
export function markPersonaLoaded() {
  ui.persona.removeAttribute('aria-busy');
}

/** The status line while a check is under way. */
export function renderGraphChecking() {
  ui.graphStatus.dataset.state = 'unknown';
  ui.graphStatus.textContent = 'Checking…';
}

/** @param {GraphStatus} status */
export function renderGraphStatus(status) {
  if (status.connected) {
    ui.graphStatus.dataset.state = 'connected';
    const latency = typeof status.latency_ms === 'number' ? `, ${status.latency_ms} ms` : '';
    ui.graphStatus.textContent = `Connected (${status.server_version ?? 'unknown version'}${latency})`;
  } else {
    ui.graphStatus.dataset.state = 'disabled';
    ui.graphStatus.textContent = `Disabled: ${status.detail ?? 'not configured'}`;
  }
}

/** @param {string} detail */
export function renderGraphError(detail) {
  ui.graphStatus.dataset.state = 'error';
  ui.graphStatus.textContent = `Error: ${detail}`;
}
