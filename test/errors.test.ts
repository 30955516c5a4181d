// Error classes carry a stable code and their exit code; exitCodeFor is the one mapping.
import { describe, expect, it } from 'vitest';
import { ConfigError, CredentialError, exitCodeFor, RequestError, ResponseError, UsageError } from '../src/errors.js';

describe('exitCodeFor', () => {
  it.each<[string, unknown, number]>([
    ['a UsageError', new UsageError('NO_CONFIG', 'no config'), 2],
    ['a ConfigError', new ConfigError([{ path: 'webAPIProviderConfig.url', message: 'is required' }], 'test'), 2],
    ['a RequestError', new RequestError('HTTP_STATUS', 'the token API answered 503'), 3],
    ['a ResponseError', new ResponseError('RESPONSE_NOT_JSON', 'not JSON'), 4],
    ['a plain Error', new Error('bug'), 1],
    ['a TypeError', new TypeError('x is undefined'), 1],
    ['a thrown string', 'oops', 1],
    ['undefined', undefined, 1],
    ['an object that looks like a CredentialError', { exitCode: 2, code: 'X' }, 1],
  ])('gives %s exit code %i', (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });
});

describe('the error classes', () => {
  it.each<[string, CredentialError, string, string]>([
    ['UsageError', new UsageError('NO_CONFIG', 'm'), 'UsageError', 'NO_CONFIG'],
    ['RequestError', new RequestError('TIMEOUT', 'm'), 'RequestError', 'TIMEOUT'],
    ['ResponseError', new ResponseError('PATH_NO_MATCH', 'm'), 'ResponseError', 'PATH_NO_MATCH'],
  ])('%s carries its class name and stable code', (_name, error, name, code) => {
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error.message).toBe('m');
  });

  it('keeps the cause', () => {
    const cause = new Error('ECONNREFUSED');
    expect(new RequestError('CONNECT', 'cannot connect', { cause }).cause).toBe(cause);
  });

  it('reports every config issue at once in one message', () => {
    const error = new ConfigError(
      [
        { path: 'webAPIProviderConfig.url', message: 'is required' },
        { path: 'webAPIProviderConfig.tls.caFile', message: 'expected a string, found number 5' },
      ],
      '--config /etc/wc.yaml',
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error.name).toBe('ConfigError');
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.issues).toHaveLength(2);
    expect(error.message).toBe(
      'config from --config /etc/wc.yaml is invalid: webAPIProviderConfig.url: is required; webAPIProviderConfig.tls.caFile: expected a string, found number 5',
    );
  });
});
