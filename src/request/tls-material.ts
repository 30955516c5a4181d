// The tls fields of a request: rendered like any field, then the files read and the PEM checked,
// before any connection is made.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readProblem, UsageError } from '../errors.js';
import type { ProviderConfig } from '../config/schema.js';
import type { Redactor } from '../redact/redactor.js';
import type { TemplateRenderer } from '../template/renderer.js';
import type { RenderedField } from '../template/rendered-field.js';

export interface TlsMaterial {
  ca?: string;
  /** Where ca came from, for a TLS failure's message: `tls.caFile <path>` or `tls.caData`. */
  caFrom?: string;
  /** The field whose CA a secret decided (a comparison chose its text or its file) or gave (env, file()): not to be printed. */
  caSecret?: 'tls.caData' | 'tls.caFile';
  cert?: string;
  key?: string;
  serverName?: string;
  insecureSkipVerify: boolean;
}

/** Reads a file the config names; `fromConfig`: the path is text of the config (relative: its directory), not a value from env or vars. */
export type ReadFile = (path: string, fromConfig?: boolean) => string;

export const TLS_TEMPLATES = ['caFile', 'caData', 'certFile', 'certData', 'keyFile', 'keyData', 'serverName'] as const;
type TlsTemplate = (typeof TLS_TEMPLATES)[number];

/** The tls settings with each template rendered. */
export interface RenderedTls {
  insecureSkipVerify?: boolean | undefined;
  fields: Partial<Record<TlsTemplate, RenderedField>>;
}

/** Runs a check of a field; one whose text a secret decided fails without saying which or why. */
export type Checked = <T>(field: RenderedField | undefined, where: string, check: () => T) => T;

/**
 * The tls fields rendered: templates too, `caData: "{{ cluster['certificate-authority-data'] }}"`
 * trusts the CA client-go sends for the cluster (a Pinniped concierge on the cluster itself), keyData
 * may come from env. Problems are collected by the renderer like any field's.
 */
export async function renderTls(
  written: ProviderConfig['tls'],
  renderer: Pick<TemplateRenderer, 'render'>,
  root: string,
): Promise<RenderedTls> {
  const fields: RenderedTls['fields'] = {};
  for (const name of TLS_TEMPLATES) {
    const value = written[name];
    if (value !== undefined) fields[name] = await renderer.render(value, `${root}.tls.${name}`);
  }
  return { insecureSkipVerify: written.insecureSkipVerify, fields };
}

/** Reads the TLS files and decodes inline data of rendered tls fields. */
export function loadTls(
  rendered: RenderedTls,
  readFile: ReadFile,
  redactor: Redactor,
  root: string,
  checked: Checked,
): TlsMaterial {
  const { fields } = rendered;
  const tls: Partial<Record<TlsTemplate, string>> = {};
  // A field a secret decided is not read or checked by validate and render (withheld): whether it passed would tell the secret.
  for (const name of TLS_TEMPLATES)
    if (fields[name] !== undefined && !fields[name].read.withheld) tls[name] = fields[name].sent;
  const at = (name: TlsTemplate) => `${root}.tls.${name}`;
  // A path as messages name it: a secret read too short for the redactor to find is [REDACTED] there.
  const shown = (name: TlsTemplate) => fields[name]?.shown ?? tls[name];
  const read = (name: TlsTemplate, path: string) =>
    checked(fields[name], at(name), () => {
      try {
        // A path from env or vars, relative, means the current directory.
        return readFile(path, fields[name]?.read.outside !== true);
      } catch (error) {
        throw new UsageError('TLS_FILE', `${at(name)}: cannot read ${shown(name)}: ${readProblem(error)}`, {
          cause: error,
        });
      }
    });
  const pem = (name: TlsTemplate, data: string, kind: string) =>
    checked(fields[name], at(name), () => {
      if (data.includes('-----BEGIN')) return data;
      const decoded = Buffer.from(data.trim(), 'base64').toString('utf8');
      if (decoded.includes('-----BEGIN')) return decoded;
      // Field names and fixed words: the plugin's frame (CredentialError.framed), as the messages below.
      throw new UsageError('TLS_DATA', `${root}.tls.${name}: expected PEM ${kind} (or base64 of it)`, { framed: true });
    });
  const material: TlsMaterial = { insecureSkipVerify: rendered.insecureSkipVerify === true };
  if (tls.caFile !== undefined) material.ca = pem('caFile', read('caFile', tls.caFile), 'certificates');
  if (tls.caData !== undefined) material.ca = pem('caData', tls.caData, 'certificates');
  if (material.ca !== undefined)
    material.caFrom = tls.caData !== undefined ? 'tls.caData' : `tls.caFile ${shown('caFile')}`;
  const caField = tls.caData !== undefined ? fields.caData : fields.caFile;
  if (
    material.ca !== undefined &&
    caField &&
    (caField.read.decided || (tls.caData !== undefined && caField.secrets.length > 0))
  )
    material.caSecret = tls.caData !== undefined ? 'tls.caData' : 'tls.caFile';
  if (tls.certFile !== undefined) material.cert = pem('certFile', read('certFile', tls.certFile), 'certificate');
  if (tls.certData !== undefined) material.cert = pem('certData', tls.certData, 'certificate');
  if (tls.keyFile !== undefined) material.key = pem('keyFile', read('keyFile', tls.keyFile), 'private key');
  if (tls.keyData !== undefined) material.key = pem('keyData', tls.keyData, 'private key');
  if (material.key !== undefined) {
    redactor.add(material.key);
    if (tls.keyData !== undefined) redactor.add(tls.keyData);
  }
  // Checked here, before any connection: Node would otherwise ignore a CA block it cannot parse (and
  // report an unknown CA later) or fail the handshake with OpenSSL's words for a key that does not fit.
  const which = (file: 'caFile' | 'certFile' | 'keyFile', data: 'caData' | 'certData' | 'keyData') =>
    tls[file] !== undefined ? file : data;
  const ca = which('caFile', 'caData');
  const cert = which('certFile', 'certData');
  const keyField = which('keyFile', 'keyData');
  if (material.ca !== undefined) checked(fields[ca], at(ca), () => certificates(at(ca), material.ca!));
  const certificate =
    material.cert !== undefined
      ? checked(fields[cert], at(cert), () => certificates(at(cert), material.cert!)[0])
      : undefined;
  const key =
    material.key !== undefined
      ? checked(fields[keyField], at(keyField), () => privateKey(at(keyField), material.key!))
      : undefined;
  if (certificate && key && !certificate.checkPrivateKey(key)) {
    checked(fields[keyField], at(keyField), () =>
      checked(fields[cert], at(cert), () => {
        throw new UsageError(
          'TLS_DATA',
          `${at(keyField)}: the private key does not belong to the certificate in ${at(cert)}`,
          { framed: true },
        );
      }),
    );
  }
  if (tls.serverName !== undefined) material.serverName = tls.serverName;
  return material;
}

function certificates(field: string, pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  // OpenSSL's TRUSTED CERTIFICATE blocks are for Node to read, not X509Certificate: let them through.
  if (blocks.length === 0 && !pem.includes('-----BEGIN TRUSTED CERTIFICATE-----')) {
    throw new UsageError('TLS_DATA', `${field}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`, {
      framed: true,
    });
  }
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new UsageError(
        'TLS_DATA',
        `${field}: certificate ${i + 1} of ${blocks.length} is not a valid X.509 certificate`,
        { framed: true },
      );
    }
  });
}

function privateKey(field: string, pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (error) {
    // OpenSSL's message names no key material, but say it in our words anyway.
    const encrypted = /passphrase|ENCRYPTED/.test(`${(error as Error).message} ${pem.slice(0, 64)}`);
    throw new UsageError(
      'TLS_DATA',
      encrypted
        ? `${field}: the private key is encrypted; decrypt it (openssl pkey -in key.pem -out plain.pem)`
        : `${field}: is not a readable PEM private key`,
      { framed: true },
    );
  }
}
