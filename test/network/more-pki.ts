// Certificates the shared test PKI (test/helpers/pki.ts) does not make: a self-signed server
// certificate, one not valid yet, an expired client certificate, and an encrypted client key.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePki, openssl, pair, type KeyPair } from '../helpers/pki.js';

export interface MorePki {
  selfSigned: KeyPair;
  notYetValid: KeyPair;
  expiredClient: KeyPair;
  /** The client key, encrypted with AES-256 under the passphrase `passphrase`. */
  encryptedClientKeyFile: string;
}

const LOCALHOST = 'DNS:localhost,IP:127.0.0.1,IP:::1';

/** `openssl ca` can set any validity period; x509 -req cannot backdate or postdate. */
function signWithDates(
  dir: string,
  name: string,
  ca: string,
  san: string,
  usage: string,
  start: string,
  end: string,
): void {
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), `${Date.now().toString(16).padStart(12, '0')}\n`);
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca=d',
      '[d]',
      'database=index.txt',
      'new_certs_dir=.',
      'serial=serial',
      'default_md=sha256',
      'policy=p',
      'unique_subject=no',
      '[p]',
      'commonName=supplied',
    ].join('\n') + '\n',
  );
  writeFileSync(
    join(dir, `${name}.ext`),
    `subjectAltName=${san}\nextendedKeyUsage=${usage}\nbasicConstraints=CA:FALSE\n`,
  );
  openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${name}`,
  ]);
  openssl(dir, [
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-keyfile',
    `${ca}.key`,
    '-cert',
    `${ca}.crt`,
    '-in',
    `${name}.csr`,
    '-out',
    `${name}.crt`,
    '-notext',
    '-startdate',
    start,
    '-enddate',
    end,
    '-extfile',
    `${name}.ext`,
  ]);
}

let cached: MorePki | undefined;

export function makeMorePki(): MorePki {
  if (cached) return cached;
  const pki = makePki();
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-more-pki-'));
  for (const [from, to] of [
    [pki.ca, 'ca'],
    [pki.clientCa, 'client-ca'],
  ] as const) {
    copyFileSync(from.certFile, join(dir, `${to}.crt`));
    copyFileSync(from.keyFile, join(dir, `${to}.key`));
  }
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'self-signed.key',
    '-out',
    'self-signed.crt',
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    `subjectAltName=${LOCALHOST}`,
  ]);
  signWithDates(dir, 'not-yet-valid', 'ca', LOCALHOST, 'serverAuth', '20990101000000Z', '21000101000000Z');
  signWithDates(
    dir,
    'expired-client',
    'client-ca',
    'DNS:expired-user',
    'clientAuth',
    '20200101000000Z',
    '20200102000000Z',
  );
  const encryptedClientKeyFile = join(dir, 'client-encrypted.key');
  openssl(dir, [
    'pkey',
    '-in',
    pki.client.keyFile,
    '-aes256',
    '-passout',
    'pass:passphrase',
    '-out',
    encryptedClientKeyFile,
  ]);
  cached = {
    selfSigned: pair(dir, 'self-signed'),
    notYetValid: pair(dir, 'not-yet-valid'),
    expiredClient: pair(dir, 'expired-client'),
    encryptedClientKeyFile,
  };
  return cached;
}
