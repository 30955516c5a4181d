// The TLS material of a request as a secure context: one code for the token API's client (http.ts)
// and doctor's cluster client (cluster.ts).
import { createSecureContext, type SecureContext } from 'node:tls';
import type { TlsMaterial } from './build.js';

/**
 * The system roots plus tls.caFile/caData. Passing `ca` would replace the roots, and handing it
 * [...rootCertificates, ca] parses every root again (~10 ms); adding the CA to a context that
 * starts from the roots gives the context its own copy of the root store with the CA in it.
 */
export function makeSecureContext(tls: TlsMaterial): SecureContext {
  const context = createSecureContext({
    ...(tls.cert !== undefined ? { cert: tls.cert } : {}),
    ...(tls.key !== undefined ? { key: tls.key } : {}),
  });
  if (tls.ca !== undefined) (context.context as { addCACert(pem: string): void }).addCACert(tls.ca);
  return context;
}
