// Turns the resolved config into the concrete request: every template rendered, the body encoded,
// TLS material read. Pure apart from the injected readFile; no network.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { UsageError } from './errors.js';
import type { ProviderConfig } from './config/schema.js';
import type { Redactor } from './redact.js';
import type { TemplateRenderer } from './template.js';

export interface TlsMaterial {
  ca?: string;
  cert?: string;
  key?: string;
  serverName?: string;
  insecureSkipVerify: boolean;
}

export interface RenderedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  tls: TlsMaterial;
}

const ROOT = 'webAPIProviderConfig';

export function renderRequest(config: ProviderConfig, renderer: TemplateRenderer, version: string, tls: TlsMaterial): RenderedRequest {
  const rendered = renderer.render(config.url, `${ROOT}.url`).trim();
  let url: URL;
  try {
    url = new URL(rendered);
  } catch {
    throw new UsageError('URL_INVALID', `${ROOT}.url: rendered to something that is not a URL`);
  }
  if (url.protocol === 'http:' && !config.allowInsecureHTTP) {
    throw new UsageError('URL_INSECURE', `${ROOT}.url: rendered to an http:// URL; use https:// or set allowInsecureHTTP: true`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError('URL_INVALID', `${ROOT}.url: expected an https:// URL, found ${url.protocol}//`);
  }
  for (const [name, templates] of Object.entries(config.query)) {
    templates.forEach((template, i) => {
      url.searchParams.append(name, renderer.render(template, `${ROOT}.query.${name}${templates.length > 1 ? `[${i}]` : ''}`));
    });
  }

  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': `webapi-credential/${version}`,
  };
  let body: string | undefined;
  switch (config.body.kind) {
    case 'raw':
      body = renderer.render(config.body.template, `${ROOT}.body`);
      break;
    case 'form': {
      const form = new URLSearchParams();
      for (const [name, templates] of Object.entries(config.body.fields)) {
        templates.forEach((template, i) => {
          form.append(name, renderer.render(template, `${ROOT}.form.${name}${templates.length > 1 ? `[${i}]` : ''}`));
        });
      }
      body = form.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      break;
    }
    case 'json':
      body = JSON.stringify(renderJson(config.body.value, `${ROOT}.json`, renderer));
      headers['content-type'] = 'application/json';
      break;
  }
  // Header names are case-insensitive: the user's spelling replaces our default of any case.
  for (const [name, template] of Object.entries(config.headers)) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    const value = renderer.render(template, `${ROOT}.headers.${name}`);
    if (/[\r\n\0]/.test(value)) throw new UsageError('HEADER_INVALID', `${ROOT}.headers.${name}: rendered value contains a line break or NUL`);
    // What Node's http accepts in a header value: tab, printable ASCII and Latin-1. Anything else
    // would fail at send time with ERR_INVALID_CHAR; encode it (urlencode, base64) instead.
    const bad = /[^\t\x20-\x7e\x80-\xff]/u.exec(value);
    if (bad) {
      const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      throw new UsageError('HEADER_INVALID', `${ROOT}.headers.${name}: rendered value contains ${code}, which an HTTP header cannot carry; encode it with urlencode() or base64()`);
    }
    headers[name] = value;
  }
  return { method: config.method, url: url.toString(), headers, ...(body !== undefined ? { body } : {}), tls };
}

function renderJson(value: unknown, where: string, renderer: TemplateRenderer): unknown {
  if (typeof value === 'string') return renderer.render(value, where);
  if (Array.isArray(value)) return value.map((item, i) => renderJson(item, `${where}[${i}]`, renderer));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderJson(v, `${where}.${k}`, renderer)]));
  }
  return value;
}

/** Reads the TLS files and decodes inline data. Key material is registered as secret. */
export function loadTls(
  written: ProviderConfig['tls'],
  readFile: (path: string) => string,
  redactor: Redactor,
  render: (template: string, where: string) => string = (template) => template,
): TlsMaterial {
  // Templates too: `caData: "{{ cluster['certificate-authority-data'] }}"` trusts the CA client-go
  // sends for the cluster (a Pinniped concierge on the cluster itself), keyData may come from env.
  const tls = { ...written };
  for (const name of ['caFile', 'caData', 'certFile', 'certData', 'keyFile', 'keyData', 'serverName'] as const) {
    const value = tls[name];
    if (value !== undefined) tls[name] = render(value, `${ROOT}.tls.${name}`);
  }
  const read = (field: string, path: string) => {
    try {
      return readFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UsageError('TLS_FILE', `${ROOT}.tls.${field}: cannot read ${path}: ${code}`, { cause: error });
    }
  };
  const pem = (field: string, data: string, kind: string) => {
    if (data.includes('-----BEGIN')) return data;
    const decoded = Buffer.from(data.trim(), 'base64').toString('utf8');
    if (decoded.includes('-----BEGIN')) return decoded;
    throw new UsageError('TLS_DATA', `${ROOT}.tls.${field}: expected PEM ${kind} (or base64 of it)`);
  };
  const material: TlsMaterial = { insecureSkipVerify: tls.insecureSkipVerify === true };
  if (tls.caFile !== undefined) material.ca = pem('caFile', read('caFile', tls.caFile), 'certificates');
  if (tls.caData !== undefined) material.ca = pem('caData', tls.caData, 'certificates');
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
  const field = (file: 'caFile' | 'certFile' | 'keyFile', data: 'caData' | 'certData' | 'keyData') => `${ROOT}.tls.${tls[file] !== undefined ? file : data}`;
  if (material.ca !== undefined) certificates(field('caFile', 'caData'), material.ca);
  const certificate = material.cert !== undefined ? certificates(field('certFile', 'certData'), material.cert)[0] : undefined;
  const key = material.key !== undefined ? privateKey(field('keyFile', 'keyData'), material.key) : undefined;
  if (certificate && key && !certificate.checkPrivateKey(key)) {
    throw new UsageError('TLS_DATA', `${field('keyFile', 'keyData')}: the private key does not belong to the certificate in ${field('certFile', 'certData')}`);
  }
  if (tls.serverName !== undefined) material.serverName = tls.serverName;
  return material;
}

function certificates(field: string, pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  // OpenSSL's TRUSTED CERTIFICATE blocks are for Node to read, not X509Certificate: let them through.
  if (blocks.length === 0 && !pem.includes('-----BEGIN TRUSTED CERTIFICATE-----')) {
    throw new UsageError('TLS_DATA', `${field}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new UsageError('TLS_DATA', `${field}: certificate ${i + 1} of ${blocks.length} is not a valid X.509 certificate`);
    }
  });
}

function privateKey(field: string, pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (error) {
    // OpenSSL's message names no key material, but say it in our words anyway.
    const encrypted = /passphrase|ENCRYPTED/.test(`${(error as Error).message} ${pem.slice(0, 64)}`);
    throw new UsageError('TLS_DATA', encrypted ? `${field}: the private key is encrypted; decrypt it (openssl pkey -in key.pem -out plain.pem)` : `${field}: is not a readable PEM private key`);
  }
}

/** The request as `render` and --verbose show it: an HTTP/1.1-like text, secrets redacted by the caller. */
export function describeRequest(request: RenderedRequest): string {
  const lines = [`${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (request.body !== undefined) lines.push('', request.body);
  return lines.join('\n') + '\n';
}
