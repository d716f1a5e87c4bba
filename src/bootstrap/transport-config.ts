import { z } from 'zod';
import { integer, optionalText } from './environment-fields.js';
import { TrustedProxies } from '../adapters/http/trusted-proxies.js';

const entriesOf = (list: string): string[] => list.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');

/** How the service is reached: TLS, HSTS and trusted proxies; spread into the environment schema of config.ts. */
export const TRANSPORT_ENVIRONMENT = {
  TLS_CERT_FILE: optionalText,
  TLS_KEY_FILE: optionalText,
  TLS_CA_FILE: optionalText,
  // 180 days by default; 0 tells browsers to forget an earlier HSTS.
  HSTS_MAX_AGE_S: integer(0, 315_360_000).default(15_552_000),
  HSTS_INCLUDE_SUBDOMAINS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  TRUST_PROXY: z
    .string()
    .default('')
    .transform(entriesOf)
    .superRefine((entries, context) => {
      try {
        TrustedProxies.parse(entries);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
};

type TransportEnvironment = z.output<z.ZodObject<typeof TRANSPORT_ENVIRONMENT>>;

/** PEM files: the certificate (or full chain), its private key, and optionally the intermediates. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** Intermediate certificates, sent after the certificate. */
  caFile: string | undefined;
}

export interface TransportConfig {
  /** HTTPS with HTTP/2 and HTTP/1.1 when set; plain HTTP/1.1 when null. */
  tls: TlsFiles | null;
  /** Strict-Transport-Security, sent on every response to a request that came over HTTPS. */
  hsts: { maxAgeS: number; includeSubDomains: boolean };
  /** Addresses, CIDR ranges or shortcuts of proxies whose X-Forwarded-* / Forwarded are believed. */
  trustProxy: string[];
}

/** The transport settings, or the one line saying why they do not fit together. */
export function transportConfigFrom(env: TransportEnvironment): TransportConfig | string {
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, TLS_CA_FILE: caFile } = env;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    return `TLS_CERT_FILE and TLS_KEY_FILE go together: ${certFile === undefined ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE'} is not set`;
  }
  if (caFile !== undefined && certFile === undefined) return 'TLS_CA_FILE needs TLS_CERT_FILE and TLS_KEY_FILE';
  return {
    tls: certFile !== undefined && keyFile !== undefined ? { certFile, keyFile, caFile } : null,
    hsts: { maxAgeS: env.HSTS_MAX_AGE_S, includeSubDomains: env.HSTS_INCLUDE_SUBDOMAINS === 'true' },
    trustProxy: env.TRUST_PROXY,
  };
}
