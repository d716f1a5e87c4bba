import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { ConfigInvalidError } from './config.js';
import type { TlsFiles } from './transport-config.js';

/** A certificate file that cannot be used; at start-up, one line and exit 1 (main.ts). */
export class CertificateInvalidError extends ConfigInvalidError {}

/** What the TLS server needs, and what an operator wants to see in the log. */
export interface LoadedCertificates {
  /** For createSecureServer() / setSecureContext(): the certificate followed by its intermediates, and the key. */
  secureContext: { cert: string; key: string };
  /** SHA-256 fingerprint of the certificate, as openssl prints it. */
  fingerprint: string;
  subject: string;
  validTo: Date;
  /** Of all the files' bytes: a reload that finds the same files changes nothing. */
  digest: string;
}

async function read(setting: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new CertificateInvalidError(`${setting} ${path} cannot be read (${code})`);
  }
}

function certificateIn(setting: string, path: string, pem: string): X509Certificate {
  try {
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate');
    return new X509Certificate(pem);
  } catch {
    throw new CertificateInvalidError(`${setting} ${path} holds no PEM certificate`);
  }
}

/**
 * Reads and checks the PEM files: a certificate, a private key that belongs to it, and the
 * intermediates if named. Every problem is one line naming the setting and the file.
 */
export async function loadCertificates(files: TlsFiles): Promise<LoadedCertificates> {
  const [certPem, keyPem, caPem] = await Promise.all([
    read('TLS_CERT_FILE', files.certFile),
    read('TLS_KEY_FILE', files.keyFile),
    files.caFile === undefined ? Promise.resolve(undefined) : read('TLS_CA_FILE', files.caFile),
  ]);
  const leaf = certificateIn('TLS_CERT_FILE', files.certFile, certPem);
  if (caPem !== undefined) certificateIn('TLS_CA_FILE', files.caFile!, caPem);
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new CertificateInvalidError(`TLS_KEY_FILE ${files.keyFile} holds no PEM private key (or one protected by a passphrase)`);
  }
  if (!leaf.checkPrivateKey(key)) {
    throw new CertificateInvalidError(`TLS_KEY_FILE ${files.keyFile} is not the key of the certificate in TLS_CERT_FILE ${files.certFile}`);
  }
  // The intermediates follow the certificate, so clients get the whole chain whatever OpenSSL would build.
  const secureContext = { cert: caPem === undefined ? certPem : `${certPem.trimEnd()}\n${caPem}`, key: keyPem };
  try {
    createSecureContext(secureContext);
  } catch (error) {
    throw new CertificateInvalidError(`TLS_CERT_FILE ${files.certFile} was refused by OpenSSL: ${(error as Error).message}`);
  }
  return {
    secureContext,
    fingerprint: leaf.fingerprint256,
    subject: leaf.subject.replaceAll('\n', ', '),
    validTo: new Date(leaf.validTo),
    digest: createHash('sha256').update(certPem).update('\0').update(keyPem).update('\0').update(caPem ?? '').digest('hex'),
  };
}
