import { startIdentityTestService } from '../support/identity-service.js';
import { storageEndpointSuite } from './storage-endpoints.suite.js';

/**
 * The storage suite once more with identity on: each request carries a token for the user it
 * names (or the any-user API key when it names none), and none may be answered 500. The whole
 * HTTP suite runs this way with `npm run test:identity`.
 */
describe('chat storage endpoints with identity on (AUTH_MODE=oidc, in-memory store)', () => {
  storageEndpointSuite(() => startIdentityTestService());
});
