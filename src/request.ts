// Turns the resolved config into the concrete request: every template rendered, the body encoded,
// TLS material read. Pure apart from the injected readFile; no network.
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
export function loadTls(tls: ProviderConfig['tls'], readFile: (path: string) => string, redactor: Redactor): TlsMaterial {
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
  if (tls.serverName !== undefined) material.serverName = tls.serverName;
  return material;
}

/** The request as `render` and --verbose show it: an HTTP/1.1-like text, secrets redacted by the caller. */
export function describeRequest(request: RenderedRequest): string {
  const lines = [`${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (request.body !== undefined) lines.push('', request.body);
  return lines.join('\n') + '\n';
}
