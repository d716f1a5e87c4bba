// The access token the page sends when the service requires identity (AUTH_MODE=oidc): pasted
// by the user, kept in sessionStorage (this tab only, gone when it closes), and sent as
// `Authorization: Bearer` with every API request. Without one the page sends no credential.

const TOKEN_KEY = 'assistant-demo.access_token';

/** @returns {string} the token, or '' when none was given */
export function storedToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return ''; // storage disabled: the token lasts as long as this page
  }
}

let current = storedToken();

/** Keeps `token` for this tab ('' forgets it). @param {string} token */
export function useToken(token) {
  current = token.trim();
  try {
    if (current) sessionStorage.setItem(TOKEN_KEY, current);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage disabled
  }
}

/** The headers that authenticate a request: none without a token. @returns {Record<string, string>} */
export function authHeaders() {
  return current ? { authorization: `Bearer ${current}` } : {};
}
