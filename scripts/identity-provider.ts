/**
 * A local OpenID Connect provider for trying identity by hand (AUTH_MODE=oidc): it serves the
 * discovery document and a JWKS, and mints tokens for whoever asks at /dev-token. For local use
 * only: it trusts everyone.
 *
 *   npx tsx scripts/identity-provider.ts            # on 127.0.0.1:9400
 *   IDP_PORT=9500 npx tsx scripts/identity-provider.ts
 */
import { LocalIdentityProvider } from '../test/support/identity-provider.js';

const port = Number(process.env.IDP_PORT ?? 9400);
const provider = await LocalIdentityProvider.start(port);
provider.serveDevTokens = true;

process.stdout.write(`A local identity provider (for trying identity only: it gives a token to anyone who asks)

  issuer:   ${provider.issuer}
  keys:     ${provider.issuer}/protocol/openid-connect/certs

Start the service with:

  AUTH_MODE=oidc AUTH_ISSUER=${provider.issuer} AUTH_AUDIENCE=${provider.audience} npm run dev

A token for alice, valid one hour (sub=... names the user, ttl=... the seconds):

  TOKEN=$(curl -s '${provider.issuer}/dev-token?sub=alice')

Stop with Ctrl+C.
`);

const stop = () => void provider.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
