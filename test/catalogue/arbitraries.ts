// The random inputs of the property tests (properties.test.ts in process, properties.process.test.ts
// through the built CLI): templates, config documents and the secrets no message may show.
import fc from 'fast-check';
import { makePki } from '../helpers/pki.js';

export const pki = makePki();

/** Secrets with template syntax, quotes, a line break, Unicode and URL-special characters in them. */
export const SECRETS = {
  PLAIN: 'prop-secret-Alpha-93qKx7',
  TRICKY: 'p@ss "w0rd" {{ qq }}\n&=+%/é',
  UNICODE: 'ключ-секрет-\u{1F511}-Zz81',
  JSONISH: '{"nested":"prop-inner-Beta-55"}',
};
export const FILE_SECRET = 'prop-file-secret-Gamma-17';
export const SECRET_VALUES = [...Object.values(SECRETS), FILE_SECRET];

/** Every 10-character window of every secret: a message may show none of them. */
const WINDOWS = [...new Set(SECRET_VALUES.flatMap((s) => [...s.matchAll(/(?=(.{10}))/gsu)].map((m) => m[1]!)))];
export function leakedPieces(text: string, pieces: string[] = WINDOWS): string[] {
  return pieces.filter((piece) => text.includes(piece));
}

// ── templates ──────────────────────────────────────────────────────────────────────────────
const EXPRESSIONS = [
  'env.PLAIN',
  'env.TRICKY',
  'env.UNICODE',
  'env.JSONISH',
  'env.EMPTY',
  'env.MISSING',
  'env["PLAIN"]',
  'process.env.PLAIN',
  'vars.v',
  'vars["x-y"]',
  'vars.missing',
  'vars.missing ?? "default"',
  'env.MISSING ?? env.PLAIN',
  'urlencode(env.TRICKY)',
  'base64(env.UNICODE)',
  'base64decode(env.PLAIN)',
  'json(env.JSONISH)',
  'json(vars)',
  'json(undefined)',
  'JSON.parse(env.PLAIN)',
  'JSON.parse(env.JSONISH).nested',
  'JSON.parse(env.JSONISH).absent',
  'JSON.parse(env.TRICKY)',
  'env.PLAIN.slice(3)',
  'env.PLAIN.toUpperCase()',
  'env.PLAIN.split("-")',
  'env.PLAIN + vars.v',
  '`${env.UNICODE}!`',
  'env.PLAIN.length',
  'file("/run/secrets/token")',
  'file("/run/secrets/" + env.PLAIN)',
  'file(env.MISSING)',
  'urlencode(env.MISSING)',
  'base64()',
  'cluster.server',
  'cluster.config.absent',
  'cluster["certificate-authority-data"]',
  'cluster',
  'null',
  'undefined',
  '{}',
  '[1, 2]',
  '1 / 0',
  'new Error(env.PLAIN).message',
  'BigInt(env.PLAIN)',
  'decodeURIComponent("%E0%A4%A")',
  'env.PLAIN.x.y',
  'nope()',
  'env.',
  '(',
  ')',
  '"unterminated',
  "'",
  '`',
  '[',
  ']',
  '?.',
  '??',
  '+',
];
export const expression = fc.constantFrom(...EXPRESSIONS);
const literal = fc.string({
  unit: fc.constantFrom(...'ab -_/:?=&.é€\u{1F511}"\'\\\n\t{}'.split(/(?:)/u)),
  maxLength: 8,
});
const templatePiece = fc.oneof(
  literal,
  expression.map((e) => `{{ ${e} }}`),
  expression.map((e) => `{{${e}}}`),
  expression.map((e) => `{{~ ${e} }}`),
  fc.tuple(expression, literal).map(([e, l]) => `{{ ${e}${l} }}`),
  fc.constantFrom('{{', '}}', '{{ ', ' }}', '{{-', '-}}'),
  expression,
);
export const template = fc.array(templatePiece, { minLength: 1, maxLength: 5 }).map((pieces) => pieces.join(''));

// ── config text and validation ─────────────────────────────────────────────────────────────
const KEYS = [
  'method',
  'url',
  'tokenPath',
  'headers',
  'query',
  'body',
  'form',
  'json',
  'expiryPath',
  'expiresInPath',
  'expiryFromJWT',
  'clientCertificateDataPath',
  'clientKeyDataPath',
  'tls',
  'allowInsecureHTTP',
  'timeout',
  'retry',
  'maxResponseBytes',
  'expiryMargin',
  'cache',
];
/** Names as users (and fuzzers) write them: ASCII, control characters included. */
const name = fc.string({ unit: 'binary-ascii', maxLength: 6 });
const plausible: Record<string, fc.Arbitrary<unknown>> = {
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'post', 'FETCH'),
  url: fc.oneof(
    fc.constantFrom(
      'https://token.example/t',
      'http://token.example/t',
      'ftp://x',
      '',
      'not a url',
      'https://[::1]:8443/t?a=1',
    ),
    template,
  ),
  tokenPath: fc.constantFrom('$.access_token', '{.status.token}', '$[', 'access_token', '', '$..*', '$.a[?@.b == 1]'),
  headers: fc.dictionary(
    fc.oneof(fc.constantFrom('Authorization', 'X-Org', 'Accept', 'content-type'), name),
    fc.oneof(template, fc.integer()),
  ),
  query: fc.dictionary(name, fc.oneof(template, fc.array(template, { maxLength: 3 }), fc.constant(null))),
  body: template,
  form: fc.dictionary(name, fc.oneof(template, fc.array(fc.oneof(template, fc.integer()), { maxLength: 3 }))),
  json: fc.oneof(
    fc.dictionary(name, fc.oneof(template, fc.jsonValue({ maxDepth: 2 }))),
    fc.array(template, { maxLength: 3 }),
    template,
  ),
  expiryPath: fc.constantFrom('$.expires_at', '$[', ''),
  expiresInPath: fc.constantFrom('$.expires_in', '{.expires_in}', ''),
  expiryFromJWT: fc.oneof(fc.boolean(), fc.constant('yes')),
  clientCertificateDataPath: fc.constantFrom('$.cert', ''),
  clientKeyDataPath: fc.constantFrom('$.key', ''),
  tls: fc.oneof(
    fc.record(
      {
        caFile: fc.constantFrom(pki.ca.certFile, '/nonexistent', ''),
        insecureSkipVerify: fc.oneof(fc.boolean(), fc.constant('true')),
      },
      { requiredKeys: [] },
    ),
    fc.record({
      caData: fc.constantFrom(
        pki.ca.cert,
        Buffer.from(pki.ca.cert).toString('base64'),
        'garbage',
        '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      ),
    }),
    fc.string({ maxLength: 5 }),
  ),
  allowInsecureHTTP: fc.oneof(fc.boolean(), fc.constant('false')),
  timeout: fc.constantFrom('10s', '0s', '500ms', '1m30s', '99999999999999999999h', '10', '-1s', 'ten'),
  retry: fc.oneof(
    fc.record(
      { limit: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.constant('3'), fc.double()) },
      { requiredKeys: [] },
    ),
    fc.integer(),
  ),
  maxResponseBytes: fc.oneof(fc.integer({ min: -1, max: 2 ** 30 }), fc.double(), fc.constant('1MiB')),
  expiryMargin: fc.constantFrom('60s', '0s', '1h', 'x'),
  cache: fc.oneof(
    fc.record({ enabled: fc.oneof(fc.boolean(), fc.constant(1)) }, { requiredKeys: [] }),
    fc.constant(null),
  ),
};
const providerInput = fc
  .tuple(
    fc.subarray(KEYS),
    fc.dictionary(name, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    fc.infiniteStream(fc.nat(9)),
  )
  .chain(([keys, extra]) =>
    fc
      .tuple(
        ...keys.map((key) =>
          fc.oneof({ weight: 4, arbitrary: plausible[key]! }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }),
        ),
      )
      .map((values) => ({
        ...extra,
        ...Object.fromEntries(keys.map((key, i) => [key, values[i]])),
      })),
  );
export const document = fc.oneof(
  { weight: 8, arbitrary: providerInput.map((p) => ({ webAPIProviderConfig: p })) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
