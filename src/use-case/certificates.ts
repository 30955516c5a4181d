// The certificates of a CA file a person names on the command line (the generators' --ca-file and
// --token-ca-file, init's --set caFile, doctor's CA of the cluster): read through deps, checked to
// hold a certificate, and cut to its certificate blocks, so that a private key concatenated into a
// bundle goes nowhere: not into a manifest, not into a trust store.
import { readProblem, UsageError } from '../errors.js';
import type { Deps } from './deps.js';

/** The certificate blocks of the file at `path`, and the labels of what was left out; `named`: how the message names it (a flag). */
export function readCertificateFile(
  path: string,
  named: string,
  deps: Pick<Deps, 'readFile'>,
  code = 'CA_FILE',
): { pem: string; dropped: string[] } {
  let text: string;
  try {
    text = deps.readFile(path);
  } catch (error) {
    throw new UsageError(code, `${named} ${path}: cannot read it: ${readProblem(error)}`, { cause: error });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(code, `${named} ${path}: expected PEM certificates`);
  return certificatesOnly(text);
}

/** The blocks a PEM text may carry into a manifest or a trust store: certificates (OpenSSL's trusted form too). */
const CERTIFICATE_LABELS: ReadonlySet<string> = new Set(['CERTIFICATE', 'TRUSTED CERTIFICATE', 'X509 CERTIFICATE']);

/**
 * A PEM text with its certificate blocks only, and the labels of the blocks it dropped (a private
 * key, a CRL, a block with no end). Unchanged when it holds nothing else. One pass over the
 * markers, then pairing each BEGIN with the END that follows it: linear in the text, whatever it holds.
 * Text that is no PEM at all (base64 of one, as tls.caData may be) is decoded first.
 */
export function certificatesOnly(text: string): { pem: string; dropped: string[] } {
  const pem = text.includes('-----BEGIN') ? text : Buffer.from(text.trim(), 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN')) return { pem: text, dropped: [] };
  const markers = [...pem.matchAll(/-----(BEGIN|END) ([A-Z0-9 ]{1,64})-----/g)];
  const kept: string[] = [];
  const dropped: string[] = [];
  // Text outside every block is no certificate either: a key whose markers are not read as such
  // (PuTTY's format, a mistyped BEGIN line) went into the manifest whole, with no note.
  let outside = false;
  let from = 0;
  for (let i = 0; i < markers.length; i++) {
    const begin = markers[i]!;
    if (begin[1] !== 'BEGIN') continue;
    const end = markers[i + 1];
    const closed = end !== undefined && end[1] === 'END' && end[2] === begin[2];
    if (closed && CERTIFICATE_LABELS.has(begin[2]!)) kept.push(pem.slice(begin.index, end.index + end[0].length));
    else dropped.push(closed ? begin[2]! : `${begin[2]} (unterminated)`);
    outside ||= /\S/.test(pem.slice(from, begin.index));
    from = closed ? end.index + end[0].length : begin.index + begin[0].length;
    if (closed) i++;
  }
  // Only what follows the last block is left to look at (a stray END marker counts as text).
  if (outside || /\S/.test(pem.slice(from))) dropped.push(OUTSIDE);
  if (dropped.length === 0 && text === pem) return { pem: text, dropped };
  return { pem: kept.length > 0 ? `${kept.join('\n')}\n` : '', dropped };
}

/** What certificatesOnly calls the text it found outside every PEM block. */
export const OUTSIDE = 'text outside the PEM blocks';
