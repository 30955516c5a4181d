// Turns the resolved config into the concrete request: every template rendered, the body encoded,
// TLS material read. Pure apart from the injected readFile; no network.
import { ResponseError, UsageError } from '../errors.js';
import type { RequestConfig } from '../config/schema.js';
import type { Redactor } from '../redact/redactor.js';
import type { TemplateRenderer } from '../template/renderer.js';
import type { FieldKind, RenderedField } from '../template/rendered-field.js';
import { DECIDED_FAILURE } from '../template/problems.js';
import { jsonStrings, renderJson, type Texts } from './json-body.js';
import { differs, registerSpelled, shownRequest, type ShownRequest } from './shown-request.js';
import {
  loadTls,
  renderTls,
  TLS_TEMPLATES,
  type Checked,
  type ReadFile,
  type RenderedTls,
  type TlsMaterial,
} from './tls-material.js';

export type { TlsMaterial } from './tls-material.js';

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
  shown?: ShownRequest;
  /**
   * The fields that carry parameters which a secret reached or decided, a placeholder of one included
   * (a request the plugin makes itself has none): `url` or `query` says that no URL goes to a browser.
   */
  secretAt?: SecretAt;
}

/**
 * Where a secret reached or decided a field that carries parameters, by the field's path: known from
 * the renderer's taint, never from the text (the redactor does not look for a letter or a boolean a
 * comparison chose). A parameter of the URL or of a raw body is the whole field's.
 */
export interface SecretAt {
  url?: string;
  query: Record<string, string>;
  body?: string;
  form: Record<string, string>;
}

/** Whether a secret reached the field (a placeholder of one included) or decided any of its text. */
function tainted(field: RenderedField): boolean {
  return field.read.secret || field.read.decided;
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
      templates.forEach((template, i) =>
        fields.push([`${root}.${name}.${key}${templates.length > 1 ? `[${i}]` : ''}`, template]),
      );
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

/** A request's templates rendered, not yet checked as a URL and headers (see buildRequest). */
export interface RenderedFields {
  url: RenderedField;
  query: Array<[string, RenderedField]>;
  body?: Texts;
  contentType?: string;
  headers: Array<[string, RenderedField]>;
  tls: RenderedTls;
  secretAt: SecretAt;
  /** The texts holding a secret read (not decided) that is [REDACTED] in the shown text: 'url', 'body' or a header's name. */
  shortRead: Set<string>;
}

/**
 * Renders every template of one request. Problems are collected by the renderer (its finish()
 * throws them all), so a config with several requests reports every missing value in one run.
 */
export async function renderFields(
  config: RequestConfig,
  renderer: TemplateRenderer,
  root = ROOT,
): Promise<RenderedFields> {
  const shortRead = new Set<string>();
  const field = async (template: string, where: string, kind: FieldKind = 'value') => {
    const rendered = await renderer.render(template, where, kind);
    if (rendered.read.shortRead)
      shortRead.add(
        where.startsWith(`${root}.headers.`)
          ? where.slice(`${root}.headers.`.length)
          : where === `${root}.url` || where.startsWith(`${root}.query.`)
            ? 'url'
            : 'body',
      );
    return rendered;
  };
  const url = await field(config.url, `${root}.url`, 'url');
  const secretAt: SecretAt = { query: {}, form: {}, ...(tainted(url) ? { url: `${root}.url` } : {}) };
  const query: Array<[string, RenderedField]> = [];
  for (const [name, templates] of Object.entries(config.query)) {
    for (const [i, template] of templates.entries()) {
      const where = `${root}.query.${name}${templates.length > 1 ? `[${i}]` : ''}`;
      const text = await field(template, where);
      if (tainted(text)) secretAt.query[name] ??= where;
      query.push([name, text]);
    }
  }
  let body: Texts | undefined;
  let contentType: string | undefined;
  switch (config.body.kind) {
    case 'raw': {
      const raw = await field(config.body.template, `${root}.body`);
      if (tainted(raw)) secretAt.body = `${root}.body`;
      body = raw;
      break;
    }
    case 'form': {
      const sent = new URLSearchParams();
      const shown = new URLSearchParams();
      for (const [name, templates] of Object.entries(config.body.fields)) {
        for (const [i, template] of templates.entries()) {
          const where = `${root}.form.${name}${templates.length > 1 ? `[${i}]` : ''}`;
          const text = await field(template, where);
          if (tainted(text)) secretAt.form[name] ??= where;
          sent.append(name, text.sent);
          shown.append(name, text.shown);
        }
      }
      body = { sent: sent.toString(), shown: shown.toString() };
      contentType = 'application/x-www-form-urlencoded';
      break;
    }
    case 'json': {
      const value = await renderJson(config.body.value, `${root}.json`, field);
      body = { sent: JSON.stringify(value.sent), shown: JSON.stringify(value.shown) };
      contentType = 'application/json';
      break;
    }
  }
  const headers: Array<[string, RenderedField]> = [];
  for (const [name, template] of Object.entries(config.headers))
    headers.push([name, await field(template, `${root}.headers.${name}`)]);
  const tls = await renderTls(config.tls, renderer, root);
  return {
    url: { ...url, sent: url.sent.trim(), shown: url.shown.trim() },
    query,
    ...(body !== undefined ? { body } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    headers,
    tls,
    secretAt,
    shortRead,
  };
}

/** The rendered fields as a request: the URL and headers checked, the TLS material read. */
export function buildRequest(
  config: RequestConfig,
  fields: RenderedFields,
  version: string,
  readFile: ReadFile,
  redactor: Redactor,
  root = ROOT,
): RenderedRequest {
  // A check that fails on a field whose text a secret chose would tell the secret, one field at a
  // time (`https://{{ env.S > "m" ? "host" : "a b" }}/` in each of many steps): it says neither which
  // field nor why (DECIDED_FAILURE).
  const checked: Checked = (field, _where, check) => {
    if (field?.read.decided !== true) return check();
    try {
      return check();
    } catch (error) {
      // Fixed words and the config's names: the plugin's frame (CredentialError.framed), as below.
      if (error instanceof UsageError) throw new UsageError('TEMPLATE_DECIDED', DECIDED_FAILURE, { framed: true });
      throw error;
    }
  };
  const tls = loadTls(fields.tls, readFile, redactor, root, checked);
  // A URL whose text a secret decided is not checked by validate and render (withheld): whether it passed would tell the secret.
  const url = fields.url.read.withheld
    ? undefined
    : checked(fields.url, `${root}.url`, () => checkedUrl(config, fields.url.sent, root));
  // One serialization for all: searchParams.append re-serializes the whole query each time.
  if (url && fields.query.length > 0) {
    const params = new URLSearchParams(url.searchParams);
    for (const [name, value] of fields.query) params.append(name, value.sent);
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
  for (const [name, field] of fields.headers) {
    const existing = spelled.get(name.toLowerCase());
    if (existing !== undefined) delete headers[existing];
    spelled.set(name.toLowerCase(), name);
    const problem = field.read.withheld ? undefined : headerProblem(field.sent);
    if (problem !== undefined) {
      const where = `${root}.headers.${name}`;
      // The config rendered this header fine before the steps ran: the answer is at fault (exit 4).
      const steps = field.read.steps;
      if (field.read.decided)
        throw steps.length > 0
          ? new ResponseError('STEP_VALUE_INVALID', DECIDED_FAILURE, { framed: true })
          : new UsageError('TEMPLATE_DECIDED', DECIDED_FAILURE, { framed: true });
      if (steps.length > 0) {
        throw new ResponseError(
          'STEP_VALUE_INVALID',
          `${where}: what ${steps.map((step) => `steps.${step}`).join(', ')} answered gives it ${problem.what}, which an HTTP header cannot carry; check the API and the template`,
          { framed: true },
        );
      }
      throw new UsageError('HEADER_INVALID', `${where}: rendered value contains ${problem.what}${problem.hint}`, {
        framed: true,
      });
    }
    headers[name] = field.sent;
  }
  const request: RenderedRequest = {
    method: config.method,
    url: url?.toString() ?? fields.url.sent,
    headers,
    ...(fields.body !== undefined ? { body: fields.body.sent } : {}),
    tls,
    secretAt: fields.secretAt,
  };
  if (differs(fields)) {
    request.shown = shownRequest(request, fields);
    registerSpelled(request, request.shown, fields.shortRead, redactor);
  }
  return request;
}

/** The rendered URL, checked: a URL, https (or http where allowed); undefined for a placeholder `render` shows. */
function checkedUrl(config: RequestConfig, text: string, root: string): URL | undefined {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // `render` shows a URL that a step will give as its placeholder; the generators one from an unset env value.
    if (!text.startsWith('[steps.') && !text.startsWith('[env.'))
      throw new UsageError('URL_INVALID', `${root}.url: rendered to something that is not a URL`, { framed: true });
  }
  if (url?.protocol === 'http:' && !config.allowInsecureHTTP) {
    throw new UsageError(
      'URL_INSECURE',
      `${root}.url: rendered to an http:// URL; use https:// or set allowInsecureHTTP: true`,
      { framed: true },
    );
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

/**
 * One request rendered after the steps ran, every problem of it reported, and built. `before`: the
 * same request as built before any step ran, whose origin the steps' answers may not change.
 */
export async function renderRequest(
  config: RequestConfig,
  renderer: TemplateRenderer,
  version: string,
  readFile: ReadFile,
  redactor: Redactor,
  root = ROOT,
  before?: RenderedRequest,
): Promise<RenderedRequest> {
  const fields = await renderFields(config, renderer, root);
  renderer.finish();
  checkOrigin(fields, before, root);
  return buildRequest(config, fields, version, readFile, redactor, root);
}

/**
 * A step's answer decides values, never where a request goes: the URL's scheme, userinfo, host and
 * port are the ones its template gives without the steps' values (SPEC "Network behaviour").
 */
function checkOrigin(fields: RenderedFields, beforeSteps: RenderedRequest | undefined, root: string): void {
  const steps = fields.url.read.steps;
  if (steps.length === 0) return;
  const before = parseUrl(beforeSteps?.url);
  const after = parseUrl(fields.url.sent);
  const same =
    before !== undefined &&
    after !== undefined &&
    (['protocol', 'username', 'password', 'hostname', 'port'] as const).every((part) => before[part] === after[part]);
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

/**
 * The request's own URL up to its query as shown (userinfo dropped), when `url` is that URL (up to
 * its query) and not a redirect's: the plugin's frame, a value a secret decided [REDACTED] in it.
 */
export function ownUrl(url: URL, request: RenderedRequest): string | undefined {
  if (!URL.canParse(request.url)) return undefined;
  const own = new URL(request.url);
  if (`${own.origin}${own.pathname}` !== `${url.origin}${url.pathname}`) return undefined;
  return shownUrl(request)
    .replace(/[?#][\s\S]*$/, '')
    .replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^@/?#]*@/, '$1');
}

/** An exchange as doctor keeps it: the request's own URL in its shown form (`shown`), another hop's as it was. */
export function asShown<T extends { url: string; shown?: boolean }>(exchange: T, request: RenderedRequest): T {
  const own = URL.canParse(exchange.url) ? ownUrl(new URL(exchange.url), request) : undefined;
  return own === undefined ? exchange : { ...exchange, url: own, shown: true };
}
