// A throwaway PKI made with openssl for each test run: a CA, server certificates (good, expired,
// wrong host), and a client CA with a client certificate for mutual TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface Pki {
  dir: string;
  ca: KeyPair;
  server: KeyPair;
  wrongHost: KeyPair;
  expired: KeyPair;
  clientCa: KeyPair;
  client: KeyPair;
  /** A CA nobody trusts, with a server certificate for localhost. */
  otherCa: KeyPair;
  untrustedServer: KeyPair;
}

export function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function pair(dir: string, name: string): KeyPair {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
}

function makeCa(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  ]);
}

/** A leaf `${name}.crt`/`.key` in `dir`, for `san` (openssl's subjectAltName), signed by the CA `${ca}` there. */
export function makeLeaf(
  dir: string,
  name: string,
  ca: string,
  subject: string,
  san: string,
  usage: string,
  days: string[],
): void {
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
    subject,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-extfile',
    `${name}.ext`,
    ...days,
  ]);
}

// OpenSSL 3.0's x509 cannot backdate a certificate; `openssl ca` can, given a minimal database.
function makeExpired(dir: string, san: string): void {
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
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
      '[p]',
      'commonName=supplied',
    ].join('\n') + '\n',
  );
  writeFileSync(
    join(dir, 'expired.ext'),
    `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
  );
  openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'expired.key',
    '-out',
    'expired.csr',
    '-subj',
    '/CN=localhost',
  ]);
  openssl(dir, [
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-keyfile',
    'ca.key',
    '-cert',
    'ca.crt',
    '-in',
    'expired.csr',
    '-out',
    'expired.crt',
    '-notext',
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200102000000Z',
    '-extfile',
    'expired.ext',
  ]);
}

let cached: Pki | undefined;

export function makePki(): Pki {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-pki-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'client-ca');
  makeCa(dir, 'other-ca');
  const localhost = 'DNS:localhost,IP:127.0.0.1,IP:::1';
  makeLeaf(dir, 'server', 'ca', '/CN=localhost', localhost, 'serverAuth', ['-days', '2']);
  makeLeaf(dir, 'wrong-host', 'ca', '/CN=elsewhere.example', 'DNS:elsewhere.example', 'serverAuth', ['-days', '2']);
  makeExpired(dir, localhost);
  makeLeaf(dir, 'untrusted-server', 'other-ca', '/CN=localhost', localhost, 'serverAuth', ['-days', '2']);
  makeLeaf(dir, 'client', 'client-ca', '/CN=test-user/O=system:masters', 'DNS:test-user', 'clientAuth', ['-days', '2']);
  cached = {
    dir,
    ca: pair(dir, 'ca'),
    server: pair(dir, 'server'),
    wrongHost: pair(dir, 'wrong-host'),
    expired: pair(dir, 'expired'),
    clientCa: pair(dir, 'client-ca'),
    client: pair(dir, 'client'),
    otherCa: pair(dir, 'other-ca'),
    untrustedServer: pair(dir, 'untrusted-server'),
  };
  return cached;
}

/** A self-signed RSA certificate and its key in a directory of their own: an application's certificate credential. */
export function selfSignedRsa(name: string): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-cert-'));
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  ]);
  return pair(dir, name);
}
