// The client-go exec protocol: KUBERNETES_EXEC_INFO in, one ExecCredential document out.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  formatExecCredential,
  readExecInfo,
  resolveApiVersion,
  V1,
  V1BETA1,
  type ExecInfo,
} from '../../src/credential/exec-credential.js';
import { caught } from '../helpers/caught.js';

describe('readExecInfo', () => {
  const cluster = {
    server: 'https://k8s:6443',
    'certificate-authority-data': 'Q0E=',
    config: { webAPIProviderConfig: { method: 'POST' } },
  };

  it.each<[string, string | undefined, ExecInfo]>([
    ['nothing when the variable is unset', undefined, { apiVersion: undefined, cluster: undefined }],
    ['nothing when the variable is empty', '', { apiVersion: undefined, cluster: undefined }],
    ['nothing when the variable is blank', ' \n', { apiVersion: undefined, cluster: undefined }],
    [
      'the v1 apiVersion without a cluster',
      JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false } }),
      { apiVersion: V1, cluster: undefined },
    ],
    [
      'the v1beta1 apiVersion',
      JSON.stringify({ apiVersion: V1BETA1, kind: 'ExecCredential', spec: {} }),
      { apiVersion: V1BETA1, cluster: undefined },
    ],
    [
      'spec.cluster with kebab-case keys as sent',
      JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', spec: { cluster, interactive: false } }),
      { apiVersion: V1, cluster },
    ],
    [
      'no cluster when spec.cluster is not an object',
      JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', spec: { cluster: ['x'] } }),
      { apiVersion: V1, cluster: undefined },
    ],
    ['the apiVersion when kind is missing', JSON.stringify({ apiVersion: V1 }), { apiVersion: V1, cluster: undefined }],
  ])('reads %s', (_name, raw, expected) => {
    expect(readExecInfo(raw)).toEqual(expected);
  });

  it.each<[string, string, string, string]>([
    [
      'invalid JSON',
      '{apiVersion: v1',
      'EXEC_INFO_INVALID',
      'KUBERNETES_EXEC_INFO is not valid JSON; it is set by client-go, unset it to run by hand',
    ],
    ['a JSON list', '[]', 'EXEC_INFO_INVALID', 'KUBERNETES_EXEC_INFO is not a JSON object'],
    ['JSON null', 'null', 'EXEC_INFO_INVALID', 'KUBERNETES_EXEC_INFO is not a JSON object'],
    [
      'the wrong kind',
      JSON.stringify({ apiVersion: V1, kind: 'Pod' }),
      'EXEC_INFO_INVALID',
      'KUBERNETES_EXEC_INFO has kind "Pod", expected "ExecCredential"',
    ],
    [
      'an unsupported apiVersion',
      JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1alpha1', kind: 'ExecCredential' }),
      'API_VERSION',
      'KUBERNETES_EXEC_INFO has apiVersion "client.authentication.k8s.io/v1alpha1"; supported: client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1',
    ],
    [
      'a missing apiVersion',
      JSON.stringify({ kind: 'ExecCredential' }),
      'API_VERSION',
      'KUBERNETES_EXEC_INFO has apiVersion null; supported: client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1',
    ],
    [
      'a numeric apiVersion',
      JSON.stringify({ apiVersion: 1, kind: 'ExecCredential' }),
      'API_VERSION',
      'KUBERNETES_EXEC_INFO has apiVersion 1; supported: client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1',
    ],
  ])('is a usage error on %s', (_name, raw, code, message) => {
    const error = caught(UsageError, () => readExecInfo(raw));
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(2);
  });
});

describe('resolveApiVersion', () => {
  const none: ExecInfo = { apiVersion: undefined, cluster: undefined };
  const v1: ExecInfo = { apiVersion: V1, cluster: undefined };

  it.each<[string, ExecInfo, string | undefined, string]>([
    ['v1beta1 when neither says', none, undefined, V1BETA1],
    ['the flag when the exec info is absent', none, V1, V1],
    ['the exec info when there is no flag', v1, undefined, V1],
    ['the exec info when the flag agrees', v1, V1, V1],
  ])('chooses %s', (_name, info, flag, expected) => {
    expect(resolveApiVersion(info, flag)).toBe(expected);
  });

  it.each<[string, ExecInfo, string, string]>([
    [
      'a flag that conflicts with the exec info',
      v1,
      V1BETA1,
      '--api-version client.authentication.k8s.io/v1beta1 conflicts with client.authentication.k8s.io/v1 asked for by KUBERNETES_EXEC_INFO',
    ],
    [
      'an unsupported flag',
      none,
      'v1',
      '--api-version "v1" is not supported; use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1',
    ],
    [
      'an unsupported flag even when the exec info is set',
      v1,
      'client.authentication.k8s.io/v1alpha1',
      '--api-version "client.authentication.k8s.io/v1alpha1" is not supported; use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1',
    ],
  ])('is a usage error for %s', (_name, info, flag, message) => {
    const error = caught(UsageError, () => resolveApiVersion(info, flag));
    expect(error.code).toBe('API_VERSION');
    expect(error.message).toBe(message);
  });
});

describe('formatExecCredential', () => {
  it.each<[string, string, Parameters<typeof formatExecCredential>[1], string]>([
    [
      'a token with its expiry',
      V1,
      { token: 'tok', expirationTimestamp: '2026-11-22T03:04:05Z' },
      '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok","expirationTimestamp":"2026-11-22T03:04:05Z"}}\n',
    ],
    [
      'a token without expiry in v1beta1',
      V1BETA1,
      { token: 'tok' },
      '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"tok"}}\n',
    ],
    [
      'certificate data in a fixed order whatever the input order',
      V1,
      {
        expirationTimestamp: '2026-11-22T03:04:05Z',
        clientKeyData: 'KEY',
        clientCertificateData: 'CERT',
        token: 'tok',
      },
      '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok","clientCertificateData":"CERT","clientKeyData":"KEY","expirationTimestamp":"2026-11-22T03:04:05Z"}}\n',
    ],
    [
      'PEM newlines and quotes escaped as JSON',
      V1,
      { clientCertificateData: '-----BEGIN CERTIFICATE-----\nA"B\n-----END CERTIFICATE-----\n', clientKeyData: 'K' },
      '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----\\nA\\"B\\n-----END CERTIFICATE-----\\n","clientKeyData":"K"}}\n',
    ],
  ])('prints %s byte for byte', (_name, apiVersion, status, expected) => {
    expect(formatExecCredential(apiVersion, status)).toBe(expected);
  });

  it('prints exactly one line of JSON', () => {
    const out = formatExecCredential(V1, { token: 'a\nb' });
    expect(out.split('\n')).toEqual([expect.any(String), '']);
    expect(JSON.parse(out)).toEqual({ apiVersion: V1, kind: 'ExecCredential', status: { token: 'a\nb' } });
  });
});
