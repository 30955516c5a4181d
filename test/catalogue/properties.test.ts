// Property-based tests (fast-check) over the pure core: config text and validation, template
// rendering and request building, response parsing and extraction. For any input the outcome is a
// result or a classified error (a CredentialError: exit 2, 3 or 4), never anything else (exit 1);
// every message is one line; and no secret read from the environment or a file, nor any value of
// the response, appears in a message once redacted (not even a 10-character piece of one).
// A few random configs also go through the built CLI: properties.process.test.ts.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { validateProviderDocument } from '../../src/config/validate.js';
import { ConfigError, ResponseError, UsageError } from '../../src/errors.js';
import { extractCredential, parseResponseBody } from '../../src/credential/extract.js';
import { checkPath, queryPath } from '../../src/credential/jsonpath.js';
import { Redactor } from '../../src/redact/redactor.js';
import { renderRequest, templateFields } from '../../src/request/build.js';
import { checkTemplates } from '../../src/template/check.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { runInProcess } from '../helpers/in-process.js';
import {
  document,
  expression,
  FILE_SECRET,
  leakedPieces,
  pki,
  SECRET_VALUES,
  SECRETS,
  template,
} from './arbitraries.js';

/** No secrets registered: what the API says is shown as it is (the redaction of it: test/credential/api-said.test.ts). */
const asIs = (text: string): string => text;

const RUNS = { numRuns: 400 };

function oneLine(message: string): boolean {
  return !/[\r\n]/.test(message);
}

function newRenderer(vars: Record<string, string> = { v: 'var-value', 'x-y': 'dashed' }) {
  const redactor = new Redactor();
  const readFile = (path: string) => {
    if (path === '/run/secrets/token') return `${FILE_SECRET}\n`;
    if (path === pki.ca.certFile) return pki.ca.cert;
    const error = new Error(`ENOENT: no such file, open '${path}'`) as NodeJS.ErrnoException;
    error.code = 'ENOENT';
    throw error;
  };
  const renderer = new TemplateRenderer(
    {
      env: { ...SECRETS, EMPTY: '' },
      vars,
      cluster: { server: 'https://k8s.example:6443', config: {} },
      readFile,
      nowMs: Date.now,
      uuid: randomUUID,
    },
    redactor,
  );
  return { redactor, renderer, readFile };
}

describe('template rendering, for any template', () => {
  it('gives a string or a UsageError with a one-line message that shows no secret', async () => {
    await fc.assert(
      fc.asyncProperty(template, async (text) => {
        const { redactor, renderer } = newRenderer();
        try {
          expect(typeof (await renderer.render(text, 'webAPIProviderConfig.body')).sent).toBe('string');
          renderer.finish();
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          const message = redactor.redact((error as Error).message);
          expect(oneLine(message)).toBe(true);
          expect(message.startsWith('webAPIProviderConfig.body: ')).toBe(true);
          // SPEC "Templates": the path given to file() is shown, so that a person can fix it.
          expect(leakedPieces(message.replace(/file\("[^"]*"\) cannot be read/g, 'file(…) cannot be read'))).toEqual(
            [],
          );
        }
      }),
      RUNS,
    );
  });

  it('registers whatever it renders from a secret, so the rendered value redacts to no secret', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          expression.filter((e) => /env|file/.test(e)),
          { minLength: 1, maxLength: 3 },
        ),
        async (expressions) => {
          const { redactor, renderer } = newRenderer();
          const { sent: rendered } = await renderer.render(
            expressions.map((e) => `[{{ ${e} }}]`).join(''),
            'webAPIProviderConfig.body',
          );
          if (renderer.failed) return;
          expect(leakedPieces(redactor.redact(rendered))).toEqual([]);
        },
      ),
      RUNS,
    );
  });
});

describe('config validation and request building, for any document', () => {
  it('gives a request or a UsageError, every message one line with no secret', async () => {
    await fc.assert(
      fc.asyncProperty(document, async (doc) => {
        const result = validateProviderDocument(doc, checkPath);
        if (!result.ok) {
          expect(result.issues.length).toBeGreaterThan(0);
          expect(oneLine(new ConfigError(result.issues, '--config-inline').message)).toBe(true);
          return;
        }
        const { redactor, renderer, readFile } = newRenderer();
        try {
          const issues = checkTemplates(
            result.config.lets,
            [],
            [{ templates: templateFields(result.config), stepsBefore: 0 }],
          );
          if (issues.length > 0) throw new ConfigError(issues, '--config-inline');
          await renderer.defineLets(result.config.lets);
          const request = await renderRequest(result.config, renderer, '0.0.0-test', readFile, redactor);
          expect(new URL(request.url).protocol).toMatch(/^https?:$/);
          for (const value of Object.values(request.headers)) expect(value).not.toMatch(/[\r\n\0]/);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          const message = redactor.redact((error as Error).message);
          expect(oneLine(message)).toBe(true);
          expect(leakedPieces(message)).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('parses any text into a document or a UsageError naming the source on one line', async () => {
    const fragments = fc.constantFrom(
      'webAPIProviderConfig:',
      '\n  ',
      'method: POST',
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      ':',
      '- ',
      '&a',
      '*a',
      '!!str',
      '!tag',
      '#',
      '\ufeff',
      '\r\n',
      '\t',
      '\u0000',
      '---',
      '...',
      '? ',
      '|',
      '>',
      'é',
      '\u{1F511}',
    );
    const json = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value));
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.array(fragments, { maxLength: 12 }).map((parts) => parts.join('')),
      json,
    );
    const outcomes = { parsed: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(text, async (source) => {
        let document: unknown;
        try {
          document = await parseConfigText(source, '--config-inline');
        } catch (error) {
          outcomes.refused++;
          expect(error).toBeInstanceOf(UsageError);
          expect((error as Error).message.startsWith('config from --config-inline ')).toBe(true);
          expect(oneLine((error as Error).message)).toBe(true);
          return;
        }
        outcomes.parsed++;
        // JSON text is read as JSON says (YAML 1.2 is a superset); no text gives undefined.
        expect(document).not.toBeUndefined();
        const asJson = (() => {
          try {
            return { value: JSON.parse(source.replace(/^\ufeff/, '')) as unknown };
          } catch {
            return undefined;
          }
        })();
        if (asJson !== undefined) expect(document).toEqual(asJson.value);
      }),
      RUNS,
    );
    // Both branches ran: a parser that refused (or took) everything would fail here.
    expect(outcomes.parsed).toBeGreaterThan(20);
    expect(outcomes.refused).toBeGreaterThan(20);
  });
});

// ── responses ──────────────────────────────────────────────────────────────────────────────
/** Response values carry this prefix, keys never do: no message may show a value. */
const VALUE = 'resp-value-';
const key = fc.constantFrom(
  'access_token',
  'token',
  'expires_in',
  'expires_at',
  'status',
  'credential',
  'data',
  'cert',
  'key',
  '0',
  'a b',
  'ключ',
  '__proto__',
);
const leaf = fc.oneof(
  fc.string({ maxLength: 6 }).map((s) => `${VALUE}${s}-0123456789`),
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    1e308,
    -1,
    0,
    1e20,
    1e15,
    4102444800,
    '4102444800',
    '2030-01-01T00:00:00Z',
    '2030-13-45T99:99:99Z',
    '\u00a0',
    '',
    true,
    false,
    null,
  ),
);
const responseDocument: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(key, tie('node'), { maxKeys: 4 }),
  ),
})).node;
// Answers shaped like a token API's, so that many runs give a credential (the random ones above rarely do).
const tokenValue = fc.string({ maxLength: 6 }).map((s) => `${VALUE}${s}-0123456789`);
const usableDocument = fc.record(
  {
    access_token: tokenValue,
    token: tokenValue,
    expires_in: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 10_000_000 }) },
      { weight: 1, arbitrary: leaf },
    ),
    expires_at: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 4102444800 }) },
      { weight: 1, arbitrary: leaf },
    ),
    status: fc.record({ credential: fc.record({ token: tokenValue }) }),
    data: fc.array(fc.record({ access_token: tokenValue }), { maxLength: 2 }),
    cert: fc.oneof(tokenValue, leaf),
    key: fc.oneof(tokenValue, leaf),
  },
  { requiredKeys: ['access_token', 'token', 'expires_in', 'cert', 'key'] },
);
const PATHS = [
  '$.access_token',
  '$.token',
  '$.status.credential.token',
  '$.data[0].access_token',
  '$..token',
  '$.*',
  '$[0]',
  "$['a b']",
  '$.ключ',
  '$.expires_in',
  '$.expires_at',
  '$.cert',
  '$.key',
];
const responseConfig = fc.record({
  token: fc.option(fc.constantFrom(...PATHS), { nil: undefined }),
  expiry: fc.option(fc.constantFrom('$.expires_at', '$.expires_in', '$.data'), { nil: undefined }),
  expiresIn: fc.option(fc.constantFrom('$.expires_in', '$.expires_at'), { nil: undefined }),
  certificates: fc.boolean(),
  expiryFromJWT: fc.boolean(),
  expiryMarginMs: fc.constantFrom(0, 60_000, 2 ** 53),
});

describe('response parsing and extraction, for any answer', () => {
  it('gives a credential or a ResponseError that names paths and keys but never a value', () => {
    const outcomes = { credentials: 0, refused: 0 };
    fc.assert(
      fc.property(
        fc.oneof(responseDocument, usableDocument),
        responseConfig,
        fc.integer({ min: 0, max: 4102444800000 }),
        (doc, c, now) => {
          const paths = {
            ...(c.token ? { token: c.token } : {}),
            ...(c.expiry ? { expiry: c.expiry } : c.expiresIn ? { expiresIn: c.expiresIn } : {}),
            ...(c.certificates || !c.token ? { clientCertificateData: '$.cert', clientKeyData: '$.key' } : {}),
          };
          let extracted: ReturnType<typeof extractCredential>;
          try {
            extracted = extractCredential(
              doc,
              { paths, expiryFromJWT: c.expiryFromJWT, expiryMarginMs: c.expiryMarginMs },
              queryPath,
              now,
              asIs,
            );
          } catch (error) {
            outcomes.refused++;
            expect(error).toBeInstanceOf(ResponseError);
            const message = (error as Error).message;
            expect(oneLine(message)).toBe(true);
            expect(message).not.toContain(VALUE);
            return;
          }
          outcomes.credentials++;
          const { status, expiresAt } = extracted;
          // The credential is the one string each path selects, and nothing else is made up.
          const only = (path: string) => queryPath(path, doc).map((m) => m.value);
          expect(status.token).toBe(paths.token !== undefined ? only(paths.token)[0] : undefined);
          if (status.token !== undefined) expect(status.token).not.toMatch(/[\n\r\0]/);
          if (status.clientCertificateData !== undefined)
            expect([status.clientCertificateData, status.clientKeyData]).toEqual([...only('$.cert'), ...only('$.key')]);
          expect(status.token !== undefined || status.clientCertificateData !== undefined).toBe(true);
          // Reported on the second, after now and not after the real expiry; none without one.
          expect(status.expirationTimestamp === undefined).toBe(expiresAt === undefined);
          if (status.expirationTimestamp !== undefined) {
            expect(status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
            const reported = Date.parse(status.expirationTimestamp);
            expect(reported).toBeGreaterThan(now - 1000);
            expect(reported).toBeLessThanOrEqual(expiresAt!);
          }
        },
      ),
      RUNS,
    );
    // Both branches were reached. About 1 answer in 20 gives a credential (17–24 of 400 in four runs):
    // a bound of 10 failed once in a fresh-clone run (10 of 400), one of 0 fails about once in 10^8.
    expect(outcomes.credentials).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(10);
  });

  it('parses any body into JSON or a ResponseError with a one-line message that shows no secret', () => {
    const outcomes = { parsed: 0, refused: 0 };
    const body = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)),
      fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString('utf8')),
      fc.constantFrom(`<html>${SECRETS.PLAIN}</html>`, `token=${SECRETS.PLAIN}\r\nmore`),
    );
    fc.assert(
      fc.property(
        body,
        fc.option(fc.constantFrom('application/json', 'text/html'), { nil: undefined }),
        (text, contentType) => {
          const redactor = new Redactor();
          for (const secret of SECRET_VALUES) redactor.add(secret);
          let parsed: unknown;
          try {
            parsed = parseResponseBody(text, contentType, Buffer.byteLength(text), (t) => redactor.redact(t));
          } catch (error) {
            outcomes.refused++;
            expect(error).toBeInstanceOf(ResponseError);
            expect(oneLine((error as Error).message)).toBe(true);
            expect(leakedPieces((error as Error).message)).toEqual([]);
            expect(() => JSON.parse(text.replace(/^\ufeff/, ''))).toThrow();
            return;
          }
          outcomes.parsed++;
          // Parsed as JSON, a byte order mark aside.
          expect(parsed).toEqual(JSON.parse(text.replace(/^\ufeff/, '')));
        },
      ),
      RUNS,
    );
    expect(outcomes.parsed).toBeGreaterThan(20);
    expect(outcomes.refused).toBeGreaterThan(20);
  });
});

// ── random configs through the CLI's run() ─────────────────────────────────────────────────
describe('random configs through the CLI', () => {
  it('exit 0 or 2 from validate and render, never 1, one prefixed line per message and no secret', async () => {
    const samples = fc.sample(
      document.map((d) => JSON.stringify(d)),
      { numRuns: 40, seed: 4242 },
    );
    const env = { ...SECRETS };
    for (const text of samples) {
      for (const command of ['validate', 'render']) {
        const result = await runInProcess([command, '--config-inline', text], { env });
        expect([0, 2]).toContain(result.code);
        if (result.code === 2) expect(result.stderr).toMatch(/^webapi-credential: [^\n]*\n$/);
        expect(leakedPieces(result.stdout + result.stderr)).toEqual([]);
      }
    }
  });
});
