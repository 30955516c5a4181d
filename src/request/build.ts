// Turns the resolved config into the concrete request: every template rendered, the body encoded,
// TLS material read. Pure apart from the injected readFile; no network.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readProblem, ResponseError, UsageError } from '../errors.js';
import type { ProviderConfig, RequestConfig } from '../config/schema.js';
import type { Redactor } from '../redact/redactor.js';
import { DECIDED_FAILURE, type FieldKind, type TemplateRenderer } from '../template/renderer.js';

export interface TlsMaterial {
  ca?: string;
  /** Where ca came from, for a TLS failure's message: `tls.caFile <path>` or `tls.caData`. */
  caFrom?: string;
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
  /**
   * What `render`, `validate` and traces show instead, when a secret too short for the redactor to
   * find (a boolean, a letter a comparison chose) reached a field: it is [REDACTED] there.
   */
  shown?: Pick<RenderedRequest, 'url' | 'headers' | 'body'>;
}

const ROOT = 'webAPIProviderConfig';

/** Reads a file the config names; `fromConfig`: the path is text of the config (relative: its directory), not a value from env or vars. */
type ReadFile = (path: string, fromConfig?: boolean) => string;

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
  /** The tls file fields whose path comes from env or vars: relative, it means the current directory. */
  tlsFromOutside?: string[];
  /** The fields (by path) whose text a secret decided: a check of one that fails names neither field nor reason. */
  decided?: string[];
  /** The same fields as `render` and messages show them, when a short secret is shown as [REDACTED]. */
  shown?: Omit<RenderedFields, 'tls' | 'shown'>;
}

/**
 * Renders every template of one request. Problems are collected by the renderer (its finish()
 * throws them all), so a config with several requests reports every missing value in one run.
 */
export async function renderFields(config: RequestConfig, renderer: TemplateRenderer, root = ROOT): Promise<RenderedFields> {
  let differs = false;
  const decided: string[] = [];
  /** The text sent and the text shown of one field. */
  const field = async (template: string, where: string, kind: FieldKind = 'value'): Promise<[string, string]> => {
    const text = await renderer.render(template, where, kind);
    if (renderer.secretChose(where)) decided.push(where);
    const shown = renderer.shownText(where);
    if (shown !== undefined) differs = true;
    return [text, shown ?? text];
  };
  const [url, shownUrl] = await field(config.url, `${root}.url`, 'url');
  const query: Array<[string, string]> = [];
  const shownQuery: Array<[string, string]> = [];
  for (const [name, templates] of Object.entries(config.query)) {
    for (const [i, template] of templates.entries()) {
      const [text, shown] = await field(template, `${root}.query.${name}${templates.length > 1 ? `[${i}]` : ''}`);
      query.push([name, text]);
      shownQuery.push([name, shown]);
    }
  }
  let body: string | undefined;
  let shownBody: string | undefined;
  let contentType: string | undefined;
  switch (config.body.kind) {
    case 'raw':
      [body, shownBody] = await field(config.body.template, `${root}.body`);
      break;
    case 'form': {
      const form = new URLSearchParams();
      const shownForm = new URLSearchParams();
      for (const [name, templates] of Object.entries(config.body.fields)) {
        for (const [i, template] of templates.entries()) {
          const [text, shown] = await field(template, `${root}.form.${name}${templates.length > 1 ? `[${i}]` : ''}`);
          form.append(name, text);
          shownForm.append(name, shown);
        }
      }
      body = form.toString();
      shownBody = shownForm.toString();
      contentType = 'application/x-www-form-urlencoded';
      break;
    }
    case 'json': {
      const [value, shown] = await renderJson(config.body.value, `${root}.json`, field);
      body = JSON.stringify(value);
      shownBody = JSON.stringify(shown);
      contentType = 'application/json';
      break;
    }
  }
  const headers: Array<[string, string]> = [];
  const shownHeaders: Array<[string, string]> = [];
  for (const [name, template] of Object.entries(config.headers)) {
    const [text, shown] = await field(template, `${root}.headers.${name}`);
    headers.push([name, text]);
    shownHeaders.push([name, shown]);
  }
  const tls = await renderTls(config.tls, renderer, root);
  const tlsFromOutside = TLS_TEMPLATES.filter((name) => tls[name] !== undefined && renderer.fromOutside(`${root}.tls.${name}`));
  for (const name of TLS_TEMPLATES) if (tls[name] !== undefined && renderer.secretChose(`${root}.tls.${name}`)) decided.push(`${root}.tls.${name}`);
  const shown = differs ? { shown: { url: shownUrl.trim(), query: shownQuery, ...(shownBody !== undefined ? { body: shownBody } : {}), headers: shownHeaders } } : {};
  return { url: url.trim(), query, ...(body !== undefined ? { body } : {}), ...(contentType !== undefined ? { contentType } : {}), headers, tls, tlsFromOutside, ...(decided.length > 0 ? { decided } : {}), ...shown };
}

/** The rendered fields as a request: the URL and headers checked, the TLS material read. */
export function buildRequest(
  config: RequestConfig,
  fields: RenderedFields,
  version: string,
  readFile: ReadFile,
  redactor: Redactor,
  root = ROOT,
  /** After the steps ran: the steps a header's template reads, to blame them for a value it cannot carry. */
  stepsOf?: (field: string) => string[],
): RenderedRequest {
  // A check that fails on a field whose text a secret chose would tell the secret, one field at a
  // time (`https://{{ env.S > "m" ? "host" : "a b" }}/` in each of many steps): it says neither which
  // field nor why (renderer.ts, DECIDED_FAILURE).
  const decided = new Set(fields.decided);
  const checked = <T>(where: string, check: () => T): T => {
    if (!decided.has(where)) return check();
    try {
      return check();
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError('TEMPLATE_DECIDED', DECIDED_FAILURE);
      throw error;
    }
  };
  const tls = loadTls(fields.tls, readFile, redactor, root, fields.tlsFromOutside ?? [], checked);
  const url = checked(`${root}.url`, () => checkedUrl(config, fields, root));
  // One serialization for all: searchParams.append re-serializes the whole query each time.
  if (url && fields.query.length > 0) {
    const params = new URLSearchParams(url.searchParams);
    for (const [name, value] of fields.query) params.append(name, value);
    url.search = params.toString();
  }

  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': `webapi-credential/${version}`,
  };
  if (fields.contentType) headers['content-type'] = fields.contentType;
  // Header names are case-insensitive: the user's spelling replaces our default of any case. Found
  // by a map of the lower-cased names, not a scan of every header per header.
  const spelled = new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
  for (const [name, value] of fields.headers) {
    const existing = spelled.get(name.toLowerCase());
    if (existing !== undefined) delete headers[existing];
    spelled.set(name.toLowerCase(), name);
    const problem = headerProblem(value);
    if (problem !== undefined) {
      const where = `${root}.headers.${name}`;
      // The config rendered this header fine before the steps ran: the answer is at fault (exit 4).
      const steps = stepsOf?.(where) ?? [];
      if (decided.has(where)) throw steps.length > 0 ? new ResponseError('STEP_VALUE_INVALID', DECIDED_FAILURE) : new UsageError('TEMPLATE_DECIDED', DECIDED_FAILURE);
      if (steps.length > 0) {
        throw new ResponseError('STEP_VALUE_INVALID', `${where}: what ${steps.map((step) => `steps.${step}`).join(', ')} answered gives it ${problem.what}, which an HTTP header cannot carry; check the API and the template`);
      }
      throw new UsageError('HEADER_INVALID', `${where}: rendered value contains ${problem.what}${problem.hint}`);
    }
    headers[name] = value;
  }
  const request: RenderedRequest = { method: config.method, url: url?.toString() ?? fields.url, headers, ...(fields.body !== undefined ? { body: fields.body } : {}), tls };
  if (fields.shown) {
    request.shown = shownRequest(request, fields.shown);
    registerSpelled(request, request.shown, redactor);
  }
  return request;
}

/**
 * Values a secret decided that are too short for the redactor alone (one letter each, shown as
 * [REDACTED]) spell it out side by side: `/H/u/n/t/e/r` in a path, `f0=H&f1=u` in a form, which a
 * server echoes in its error. Where the sent text differs from the shown one, from the first
 * difference to the last, is a secret of its own, in the form sent and decoded.
 */
function registerSpelled(request: RenderedRequest, shown: NonNullable<RenderedRequest['shown']>, redactor: Redactor): void {
  const texts: Array<[string, string | undefined]> = [[request.url, shown.url], [request.body ?? '', shown.body]];
  for (const [name, value] of Object.entries(request.headers)) texts.push([value, shown.headers[name]]);
  for (const [sent, seen] of texts) {
    if (seen === undefined || sent === seen) continue;
    let start = 0;
    while (start < sent.length && start < seen.length && sent[start] === seen[start]) start++;
    let end = 0;
    while (end < sent.length - start && end < seen.length - start && sent[sent.length - 1 - end] === seen[seen.length - 1 - end]) end++;
    const span = sent.slice(start, sent.length - end);
    redactor.add(span);
    for (const decode of [(t: string) => decodeURIComponent(t.replaceAll('+', ' ')), decodeURIComponent]) {
      try {
        redactor.add(decode(span));
      } catch {
        // Not percent-encoded text.
      }
    }
  }
}

/** The rendered URL, checked: a URL, https (or http where allowed); undefined for a placeholder `render` shows. */
function checkedUrl(config: RequestConfig, fields: RenderedFields, root: string): URL | undefined {
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
  return url;
}

/** What a header value cannot carry, in words; undefined when it is fine. */
function headerProblem(value: string): { what: string; hint: string } | undefined {
  if (/[\r\n\0]/.test(value)) return { what: 'a line break or NUL', hint: '' };
  // What Node's http accepts in a header value: tab, printable ASCII and Latin-1. Anything else
  // would fail at send time with ERR_INVALID_CHAR; encode it (urlencode, base64) instead.
  const bad = /[^\t\x20-\x7e\x80-\xff]/u.exec(value);
  if (!bad) return undefined;
  const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return { what: code, hint: ', which an HTTP header cannot carry; encode it with urlencode() or base64()' };
}

/** The request as shown: the same, with the fields a short secret reached as the renderer showed them. */
function shownRequest(request: RenderedRequest, fields: NonNullable<RenderedFields['shown']>): NonNullable<RenderedRequest['shown']> {
  let url = fields.url;
  try {
    const parsed = new URL(fields.url);
    for (const [name, value] of fields.query) parsed.searchParams.append(name, value);
    url = parsed.toString();
  } catch {
    // Shown as rendered: it is only read.
  }
  const headers = { ...request.headers };
  for (const [name, value] of fields.headers) if (Object.hasOwn(headers, name)) headers[name] = value;
  // The marker went through URL and form encoding: show it as written.
  const plain = (text: string) => text.replaceAll('%5BREDACTED%5D', '[REDACTED]');
  return { url: plain(url), headers, ...(fields.body !== undefined ? { body: plain(fields.body) } : {}) };
}

/** One request rendered after the steps ran, every problem of it reported, and built. */
export async function renderRequest(
  config: RequestConfig,
  renderer: TemplateRenderer,
  version: string,
  readFile: ReadFile,
  redactor: Redactor,
  root = ROOT,
): Promise<RenderedRequest> {
  const fields = await renderFields(config, renderer, root);
  renderer.finish();
  checkOrigin(config, fields, renderer, root);
  const templates = new Map(Object.entries(config.headers).map(([name, template]) => [`${root}.headers.${name}`, template]));
  return buildRequest(config, fields, version, readFile, redactor, root, (field) => renderer.stepsIn(templates.get(field) ?? ''));
}

/**
 * A step's answer decides values, never where a request goes: the URL's scheme, userinfo, host and
 * port are the ones its template gives without the steps' values (SPEC "Network behaviour").
 */
function checkOrigin(config: RequestConfig, fields: RenderedFields, renderer: TemplateRenderer, root: string): void {
  const steps = renderer.stepsIn(config.url);
  if (steps.length === 0) return;
  const before = parseUrl(renderer.textBeforeSteps(`${root}.url`)?.trim());
  const after = parseUrl(fields.url);
  const same = before !== undefined && after !== undefined && (['protocol', 'username', 'password', 'hostname', 'port'] as const).every((part) => before[part] === after[part]);
  if (same) return;
  const given = before !== undefined ? `${before.protocol}//${before.host}` : 'none without them';
  throw new ResponseError(
    'STEP_ORIGIN',
    `${root}.url: what ${steps.map((step) => `steps.${step}`).join(', ')} answered changes the URL's origin (scheme, userinfo, host or port) from the one the config gives (${given}); a step's answer decides values, never where a request goes`,
  );
}

function parseUrl(text: string | undefined): URL | undefined {
  try {
    return text === undefined ? undefined : new URL(text);
  } catch {
    return undefined;
  }
}

async function renderJson(
  value: unknown,
  where: string,
  field: (template: string, where: string) => Promise<[string, string]>,
): Promise<[unknown, unknown]> {
  if (typeof value === 'string') return field(value, where);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    const shown: unknown[] = [];
    for (const [i, item] of value.entries()) {
      const [text, view] = await renderJson(item, `${where}[${i}]`, field);
      items.push(text);
      shown.push(view);
    }
    return [items, shown];
  }
  if (value && typeof value === 'object') {
    const object: Record<string, unknown> = {};
    const shown: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const [text, view] = await renderJson(v, `${where}.${k}`, field);
      Object.defineProperty(object, k, { value: text, enumerable: true, writable: true, configurable: true });
      Object.defineProperty(shown, k, { value: view, enumerable: true, writable: true, configurable: true });
    }
    return [object, shown];
  }
  return [value, value];
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
function loadTls(
  tls: ProviderConfig['tls'],
  readFile: ReadFile,
  redactor: Redactor,
  root: string,
  fromOutside: string[],
  checked: <T>(where: string, check: () => T) => T,
): TlsMaterial {
  const read = (field: string, path: string) =>
    checked(`${root}.tls.${field}`, () => {
      try {
        return readFile(path, !fromOutside.includes(field));
      } catch (error) {
        throw new UsageError('TLS_FILE', `${root}.tls.${field}: cannot read ${path}: ${readProblem(error)}`, { cause: error });
      }
    });
  const pem = (field: string, data: string, kind: string) =>
    checked(`${root}.tls.${field}`, () => {
      if (data.includes('-----BEGIN')) return data;
      const decoded = Buffer.from(data.trim(), 'base64').toString('utf8');
      if (decoded.includes('-----BEGIN')) return decoded;
      throw new UsageError('TLS_DATA', `${root}.tls.${field}: expected PEM ${kind} (or base64 of it)`);
    });
  const material: TlsMaterial = { insecureSkipVerify: tls.insecureSkipVerify === true };
  if (tls.caFile !== undefined) material.ca = pem('caFile', read('caFile', tls.caFile), 'certificates');
  if (tls.caData !== undefined) material.ca = pem('caData', tls.caData, 'certificates');
  if (material.ca !== undefined) material.caFrom = tls.caData !== undefined ? 'tls.caData' : `tls.caFile ${tls.caFile}`;
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
  if (material.ca !== undefined) checked(field('caFile', 'caData'), () => certificates(field('caFile', 'caData'), material.ca!));
  const certificate = material.cert !== undefined ? checked(field('certFile', 'certData'), () => certificates(field('certFile', 'certData'), material.cert!)[0]) : undefined;
  const key = material.key !== undefined ? checked(field('keyFile', 'keyData'), () => privateKey(field('keyFile', 'keyData'), material.key!)) : undefined;
  if (certificate && key && !certificate.checkPrivateKey(key)) {
    checked(field('keyFile', 'keyData'), () =>
      checked(field('certFile', 'certData'), () => {
        throw new UsageError('TLS_DATA', `${field('keyFile', 'keyData')}: the private key does not belong to the certificate in ${field('certFile', 'certData')}`);
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
  const shown = request.shown ?? request;
  const lines = [`${request.method} ${shown.url}`];
  for (const [name, value] of Object.entries(shown.headers)) lines.push(`${name}: ${value}`);
  if (shown.body !== undefined) lines.push('', shown.body);
  return lines.join('\n') + '\n';
}

/** The URL as `validate` shows it. */
export function shownUrl(request: RenderedRequest): string {
  return request.shown?.url ?? request.url;
}
