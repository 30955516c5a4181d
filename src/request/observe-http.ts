// What doctor learns of one HTTP exchange from the client that made it (http.ts, cluster.ts): its
// timings, the server certificate and which trust verified it, the status and the Date header.
// Loaded with the client; only a call with `observe` (doctor) makes a watcher.
import { X509Certificate } from 'node:crypto';
import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { connect, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import type { TlsMaterial } from './build.js';

export interface TlsPeer {
  subject: string;
  issuer: string;
  /** ISO time the server certificate expires. */
  validTo: string;
  /** What verified it: the config's CA (tls.caFile / caData), the system roots, or nothing (insecureSkipVerify). */
  trust: 'ca' | 'system' | 'none';
}

export interface HttpObservation {
  /** The URL of this hop without its query; the caller redacts what it shows, unless `shown`. */
  url: string;
  /** `url` is the request's own as shown (build.ts ownUrl): the plugin's frame, not redacted again. */
  shown?: boolean;
  status?: number;
  /** The answer's Date header, and this machine's clock when the answer arrived (the clock skew). */
  date?: string;
  receivedAt?: number;
  /** Node's error code when no answer came. */
  error?: string;
  /** Milliseconds from the start of the exchange: DNS done, connected, TLS done, answer complete. */
  timings: { lookup?: number; connect?: number; tls?: number; answer?: number };
  tls?: TlsPeer;
}

interface Watcher {
  attach: (request: ClientRequest) => void;
  follow: <T extends { status: number; headers: IncomingHttpHeaders }>(exchanged: Promise<T>) => Promise<T>;
}

export function watchExchange(
  target: URL,
  tls: TlsMaterial,
  options: { now: () => number; deadline: number; observe?: (seen: HttpObservation) => void },
): Watcher {
  const started = options.now();
  const seen: HttpObservation = { url: `${target.origin}${target.pathname}`, timings: {} };
  const at = () => options.now() - started;
  let socket: Socket | undefined;
  const peer = () => {
    if (seen.tls || !socket || !('getPeerCertificate' in socket)) return;
    seen.tls = describePeer(socket as TLSSocket, tls);
  };
  return {
    attach: (request) =>
      request.on('socket', (opened: Socket) => {
        socket = opened;
        opened.once('lookup', () => (seen.timings.lookup = at()));
        opened.once('connect', () => (seen.timings.connect = at()));
        opened.once('secureConnect', () => {
          seen.timings.tls = at();
          peer();
        });
      }),
    follow: (exchanged) =>
      exchanged.then(
        (answer) => {
          seen.timings.answer = at();
          seen.status = answer.status;
          seen.receivedAt = options.now();
          const date = answer.headers.date;
          if (date !== undefined) seen.date = date;
          options.observe?.(seen);
          return answer;
        },
        async (error: unknown) => {
          seen.error = (error as { code?: string }).code ?? 'REQUEST';
          peer();
          // A refused certificate is gone with its socket: who sent it, read in a handshake of its own.
          if (
            !seen.tls &&
            target.protocol === 'https:' &&
            /CERT|SIGNATURE|ISSUER|SELF_SIGNED|ALTNAME/.test(seen.error)
          ) {
            // Within the call's deadline too: the plugin ends by --timeout, doctor included.
            const probed = await probePeer(
              target,
              tls,
              Math.max(1, Math.min(PROBE_MS, options.deadline - options.now())),
            );
            if (probed) seen.tls = probed;
          }
          options.observe?.(seen);
          throw error;
        },
      ),
  };
}

// The probe's handshake: long enough for a server that answered a moment ago.
const PROBE_MS = 3_000;

/** The certificate a server sends, what doctor shows of it. */
function probePeer(target: URL, tls: TlsMaterial, timeoutMs: number): Promise<TlsPeer | undefined> {
  return probeServer(target, tls, timeoutMs, (socket) => describePeer(socket, tls));
}

/**
 * What `read` makes of the server's certificates, from a handshake that trusts them without checking
 * and sends nothing over it (no request, no client certificate): only after the client refused them,
 * since Node drops a refused certificate with its socket. Undefined when that handshake fails too, or
 * takes longer than `timeoutMs`.
 */
export function probeServer<T>(
  target: URL,
  tls: TlsMaterial,
  timeoutMs: number,
  read: (socket: TLSSocket) => T,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // No SNI for an IP address (RFC 6066), as https.request does.
    const servername = tls.serverName ?? (isIP(host) ? undefined : host);
    const socket = connect({
      host,
      port: Number(target.port || 443),
      ...(servername !== undefined ? { servername } : {}),
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    const done = (value: T | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => {
      try {
        done(read(socket));
      } catch {
        done(undefined);
      }
    });
    socket.once('error', () => done(undefined));
  });
}

function describePeer(socket: TLSSocket, tls: TlsMaterial): TlsPeer | undefined {
  let certificate: DetailedPeerCertificate;
  try {
    certificate = socket.getPeerCertificate(true);
  } catch {
    return undefined;
  }
  if (!certificate || Object.keys(certificate).length === 0) return undefined;
  return {
    subject: distinguishedName(certificate.subject),
    issuer: distinguishedName(certificate.issuer),
    validTo: new Date(certificate.valid_to).toISOString(),
    trust: tls.insecureSkipVerify && !socket.authorized ? 'none' : signedByCa(certificate, tls.ca) ? 'ca' : 'system',
  };
}

/** Whether a certificate of the verified chain is one of the config's CA bundle. */
function signedByCa(leaf: DetailedPeerCertificate, bundle: string | undefined): boolean {
  if (bundle === undefined) return false;
  const ours = new Set<string>();
  for (const pem of bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
    try {
      ours.add(new X509Certificate(pem).fingerprint256);
    } catch {
      // Not a certificate Node reads: it verified nothing.
    }
  }
  const visited = new Set<DetailedPeerCertificate>();
  for (
    let cert: DetailedPeerCertificate | undefined = leaf;
    cert && !visited.has(cert);
    cert = cert.issuerCertificate
  ) {
    visited.add(cert);
    if (ours.has(cert.fingerprint256)) return true;
  }
  return false;
}

export function distinguishedName(name: Record<string, string | string[] | undefined> | undefined): string {
  if (!name) return '';
  return Object.entries(name)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');
}
