// Turns the resolved config into the concrete request: every template rendered, the body encoded,
// TLS material read. Pure apart from the injected readFile; no network.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readProblem, UsageError } from '../errors.js';
import type { ProviderConfig, RequestConfig } from '../config/schema.js';
import type { Redactor } from '../redact/redactor.js';
import type { TemplateRenderer } from '../template/renderer.js';

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

/** Where a request's fields are in the config: `webAPIProviderConfig` or `webAPIProviderConfig.steps.<name>`. */
export function requestRoot(step?: { name: string }): string {
  return step ? `${ROOT}.steps.${step.name}` : ROOT;
}

/** Every template of one request as [field path, text]: what checkTemplates() sees when the config loads. */
export function templateFields(config: RequestConfig, root = ROOT): Array<[string, string]> {
  const fields: Array<[string, string]> = [[`${root}.url`, config.url]];
  const lists = (name: string, record: Record<string, string[]>) => {
    for (const [key, templates] of Object.entries(record)) {
      templates.forEach((template, i) => fields.push([`${root}.${name}.${key}${templates.length > 1 ? `[${i}]` : ''}`, template]));
    }
  };
  lists('query', config.query);
  if (config.body.kind === 'raw') fields.push([`${root}.body`, config.body.template]);
  if (config.body.kind === 'form') lists('form', config.body.fields);
  if (config.body.kind === 'json') jsonStrings(config.body.value, `${root}.json`, fields);
  for (const [name, template] of Object.entries(config.headers)) fields.push([`${root}.headers.${name}`, template]);
  for (const name of TLS_TEMPLATES) {
    const value = config.tls[name];
    if (value !== undefined) fields.push([`${root}.tls.${name}`, value]);
  }
  return fields;
}

function jsonStrings(value: unknown, where: string, into: Array<[string, string]>): void {
  if (typeof value === 'string') into.push([where, value]);
  else if (Array.isArray(value)) value.forEach((item, i) => jsonStrings(item, `${where}[${i}]`, into));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) jsonStrings(v, `${where}.${k}`, into);
}

/** A request's templates rendered, not yet checked as a URL and headers (see buildRequest). */
export interface RenderedFields {
  url: string;
  query: Array<[string, string]>;
  body?: string;
  contentType?: string;
  headers: Array<[string, string]>;
  tls: ProviderConfig['tls'];
}

/**
 * Renders every template of one request. Problems are collected by the renderer (its finish()
 * throws them all), so a config with several requests reports every missing value in one run.
 */
export async function renderFields(config: RequestConfig, renderer: TemplateRenderer, root = ROOT): Promise<RenderedFields> {
  const url = (await renderer.render(config.url, `${root}.url`)).trim();
  const query: Array<[string, string]> = [];
  for (const [name, templates] of Object.entries(config.query)) {
    for (const [i, template] of templates.entries()) {
      query.push([name, await renderer.render(template, `${root}.query.${name}${templates.length > 1 ? `[${i}]` : ''}`)]);
    }
  }
  let body: string | undefined;
  let contentType: string | undefined;
  switch (config.body.kind) {
    case 'raw':
      body = await renderer.render(config.body.template, `${root}.body`);
      break;
    case 'form': {
      const form = new URLSearchParams();
      for (const [name, templates] of Object.entries(config.body.fields)) {
        for (const [i, template] of templates.entries()) {
          form.append(name, await renderer.render(template, `${root}.form.${name}${templates.length > 1 ? `[${i}]` : ''}`));
        }
      }
      body = form.toString();
      contentType = 'application/x-www-form-urlencoded';
      break;
    }
    case 'json':
      body = JSON.stringify(await renderJson(config.body.value, `${root}.json`, renderer));
      contentType = 'application/json';
      break;
  }
  const headers: Array<[string, string]> = [];
  for (const [name, template] of Object.entries(config.headers)) headers.push([name, await renderer.render(template, `${root}.headers.${name}`)]);
  const tls = await renderTls(config.tls, renderer, root);
  return { url, query, ...(body !== undefined ? { body } : {}), ...(contentType !== undefined ? { contentType } : {}), headers, tls };
}

/** The rendered fields as a request: the URL and headers checked, the TLS material read. */
export function buildRequest(
  config: RequestConfig,
  fields: RenderedFields,
  version: string,
  readFile: (path: string) => string,
  redactor: Redactor,
  root = ROOT,
): RenderedRequest {
  const tls = loadTls(fields.tls, readFile, redactor, root);
  let url: URL | undefined;
  try {
    url = new URL(fields.url);
  } catch {
    // `render` shows a URL that a step will give as its placeholder; the generators one from an unset env value.
    if (!fields.url.startsWith('[steps.') && !fields.url.startsWith('[env.')) throw new UsageError('URL_INVALID', `${root}.url: rendered to something that is not a URL`);
  }
  if (url?.protocol === 'http:' && !config.allowInsecureHTTP) {
    throw new UsageError('URL_INSECURE', `${root}.url: rendered to an http:// URL; use https:// or set allowInsecureHTTP: true`);
  }
  if (url && url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError('URL_INVALID', `${root}.url: expected an https:// URL, found ${url.protocol}//`);
  }
  for (const [name, value] of fields.query) url?.searchParams.append(name, value);

  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': `webapi-credential/${version}`,
  };
  if (fields.contentType) headers['content-type'] = fields.contentType;
  // Header names are case-insensitive: the user's spelling replaces our default of any case.
  for (const [name, value] of fields.headers) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    if (/[\r\n\0]/.test(value)) throw new UsageError('HEADER_INVALID', `${root}.headers.${name}: rendered value contains a line break or NUL`);
    // What Node's http accepts in a header value: tab, printable ASCII and Latin-1. Anything else
    // would fail at send time with ERR_INVALID_CHAR; encode it (urlencode, base64) instead.
    const bad = /[^\t\x20-\x7e\x80-\xff]/u.exec(value);
    if (bad) {
      const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      throw new UsageError('HEADER_INVALID', `${root}.headers.${name}: rendered value contains ${code}, which an HTTP header cannot carry; encode it with urlencode() or base64()`);
    }
    headers[name] = value;
  }
  return { method: config.method, url: url?.toString() ?? fields.url, headers, ...(fields.body !== undefined ? { body: fields.body } : {}), tls };
}

/** One request rendered, every problem of it reported, and built. */
export async function renderRequest(
  config: RequestConfig,
  renderer: TemplateRenderer,
  version: string,
  readFile: (path: string) => string,
  redactor: Redactor,
  root = ROOT,
): Promise<RenderedRequest> {
  const fields = await renderFields(config, renderer, root);
  renderer.finish();
  return buildRequest(config, fields, version, readFile, redactor, root);
}

async function renderJson(value: unknown, where: string, renderer: TemplateRenderer): Promise<unknown> {
  if (typeof value === 'string') return renderer.render(value, where);
  if (Array.isArray(value)) {
    const items = [];
    for (const [i, item] of value.entries()) items.push(await renderJson(item, `${where}[${i}]`, renderer));
    return items;
  }
  if (value && typeof value === 'object') {
    const object: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(object, k, { value: await renderJson(v, `${where}.${k}`, renderer), enumerable: true, writable: true, configurable: true });
    }
    return object;
  }
  return value;
}

const TLS_TEMPLATES = ['caFile', 'caData', 'certFile', 'certData', 'keyFile', 'keyData', 'serverName'] as const;

/**
 * The tls fields rendered: templates too, `caData: "{{ cluster['certificate-authority-data'] }}"`
 * trusts the CA client-go sends for the cluster (a Pinniped concierge on the cluster itself), keyData
 * may come from env. Problems are collected by the renderer like any field's.
 */
async function renderTls(written: ProviderConfig['tls'], renderer: Pick<TemplateRenderer, 'render'>, root = ROOT): Promise<ProviderConfig['tls']> {
  const tls = { ...written };
  for (const name of TLS_TEMPLATES) {
    const value = tls[name];
    if (value !== undefined) tls[name] = await renderer.render(value, `${root}.tls.${name}`);
  }
  return tls;
}

/** Reads the TLS files and decodes inline data of rendered tls fields. */
function loadTls(tls: ProviderConfig['tls'], readFile: (path: string) => string, redactor: Redactor, root = ROOT): TlsMaterial {
  const read = (field: string, path: string) => {
    try {
      return readFile(path);
    } catch (error) {
      throw new UsageError('TLS_FILE', `${root}.tls.${field}: cannot read ${path}: ${readProblem(error)}`, { cause: error });
    }
  };
  const pem = (field: string, data: string, kind: string) => {
    if (data.includes('-----BEGIN')) return data;
    const decoded = Buffer.from(data.trim(), 'base64').toString('utf8');
    if (decoded.includes('-----BEGIN')) return decoded;
    throw new UsageError('TLS_DATA', `${root}.tls.${field}: expected PEM ${kind} (or base64 of it)`);
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
  const field = (file: 'caFile' | 'certFile' | 'keyFile', data: 'caData' | 'certData' | 'keyData') => `${root}.tls.${tls[file] !== undefined ? file : data}`;
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
