// Generators never copy a private key into a manifest (SPEC "Errors"): a CA bundle given as
// --ca-file or tls.caFile that also holds a private key (a bundle made by concatenating files) is
// copied with its certificates only, and a note on stderr says what was dropped. Before, the key
// went into certificate-authority-data or tls.caData with no note.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { readCertificateFile } from '../../src/use-case/certificates.js';
import { UsageError } from '../../src/errors.js';
import { caught } from '../helpers/caught.js';

const PREFIX = 'webapi-credential: ';
const pki = makePki();
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-ca-bundle-'));
const key = readFileSync(pki.ca.keyFile, 'utf8');
const bundle = join(dir, 'bundle.pem');
writeFileSync(bundle, `${readFileSync(pki.ca.certFile, 'utf8')}${key}${readFileSync(pki.otherCa.certFile, 'utf8')}`);
const keyBody = key.split('\n').find((line) => line.length > 40)!;
/** The key in the forms a manifest could carry it: its PEM body, base64 of the PEM. */
const keyForms = [keyBody, Buffer.from(key).toString('base64').slice(40, 100)];
/** No block of it in stdout at all (the note on stderr names the label, never the key). */
const expectNoKeyBlock = (stdout: string) => {
  expect(stdout).not.toMatch(/PRIVATE KEY|UFJJVkFURSBLRVk|QUklWQVRFIEtFW|SVZBVEUgS0VZ/);
};
const config = JSON.stringify({
  webAPIProviderConfig: { method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.t', tls: { caFile: bundle } },
});
const plain = JSON.stringify({
  webAPIProviderConfig: { method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.t' },
});
const label = /-----BEGIN ([A-Z ]+)-----/.exec(key)![1]!;

/** The certificates of a PEM text, as the manifest must carry them. */
const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);

describe('a CA bundle that holds a private key', () => {
  it('kubeconfig --ca-file: certificate-authority-data has the certificates only, and a note says so', async () => {
    const result = await runInProcess([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--ca-file',
      bundle,
      '--config-inline',
      plain,
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: `${PREFIX}note: --ca-file ${bundle} holds a ${label} block besides its certificates: it is not copied into the manifest, only the certificates are\n`,
    });
    const kubeconfig = YAML.parse(result.stdout) as { clusters: Array<{ cluster: Record<string, string> }> };
    const data = Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString();
    expect(certificates(data)).toEqual(certificates(readFileSync(bundle, 'utf8')));
    expect(leaks(result, keyForms)).toEqual([]);
    expectNoKeyBlock(result.stdout);
  });

  it('kubeconfig --embed-config: tls.caFile is inlined as tls.caData without the key, with a note', async () => {
    const result = await runInProcess([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--config-inline',
      config,
      '--embed-config',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `${PREFIX}note: webAPIProviderConfig.tls.caFile ${bundle} holds a ${label} block besides its certificates: it is not copied into the manifest, only the certificates are\n`,
    );
    expect(leaks(result, keyForms)).toEqual([]);
    expectNoKeyBlock(result.stdout);
  });

  it('argocd-secret: a tls.caData written inline is copied without the key, with a note', async () => {
    const inline = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://127.0.0.1:9/token',
        tokenPath: '$.t',
        tls: { caData: readFileSync(bundle, 'utf8') },
      },
    });
    const result = await runInProcess([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'prod',
      '--config-inline',
      inline,
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: `${PREFIX}note: webAPIProviderConfig.tls.caData holds a ${label} block besides its certificates: it is not copied into the manifest, only the certificates are\n${PREFIX}note: no --ca-file: Argo CD will trust only its system roots for the cluster's certificate (a cluster with a private CA needs --ca-file)\n`,
    });
    expect(leaks(result, keyForms)).toEqual([]);
    expectNoKeyBlock(result.stdout);
  });

  it('argocd-secret: tls.caFile is inlined without the key, with a note', async () => {
    const result = await runInProcess([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'prod',
      '--config-inline',
      config,
      '--ca-file',
      bundle,
    ]);
    expect(result.code).toBe(0);
    const notes = result.stderr.split('\n').filter((line) => line.includes('besides its certificates'));
    expect(notes).toEqual([
      `${PREFIX}note: --ca-file ${bundle} holds a ${label} block besides its certificates: it is not copied into the manifest, only the certificates are`,
      `${PREFIX}note: webAPIProviderConfig.tls.caFile ${bundle} holds a ${label} block besides its certificates: it is not copied into the manifest, only the certificates are`,
    ]);
    expect(leaks(result, keyForms)).toEqual([]);
    expectNoKeyBlock(result.stdout);
    const secret = YAML.parse(result.stdout) as { stringData: Record<string, string> };
    const exec = JSON.parse(secret.stringData['config']!).execProviderConfig as { args: string[] };
    const inlined = YAML.parse(exec.args[1]!) as { webAPIProviderConfig: { tls: { caData: string } } };
    expect(certificates(inlined.webAPIProviderConfig.tls.caData)).toEqual(certificates(readFileSync(bundle, 'utf8')));
  });
});

// init's --set caFile (what discovery trusts) and doctor's cluster CA read the file the same way: the
// key of a concatenated bundle is not handed on, not even to a trust store.
describe('readCertificateFile, the one reader of a CA file a person names', () => {
  const read = (path: string) => readFileSync(path, 'utf8');

  it('gives the certificates only, and the labels of what it left out', () => {
    const found = readCertificateFile(bundle, '--set caFile', { readFile: read });
    expect(certificates(found.pem)).toHaveLength(2);
    expect(found.pem).not.toContain(keyBody);
    expect(found.dropped).toEqual([label]);
  });

  it('refuses a file with no certificate, and one it cannot read, naming it, with the code it is given', () => {
    writeFileSync(join(dir, 'key-only.pem'), key);
    expect(
      caught(UsageError, () =>
        readCertificateFile(join(dir, 'key-only.pem'), '--set caFile', { readFile: read }, 'SET_INVALID'),
      ),
    ).toMatchObject({
      code: 'SET_INVALID',
      message: `--set caFile ${join(dir, 'key-only.pem')}: expected PEM certificates`,
    });
    expect(
      caught(UsageError, () => readCertificateFile(join(dir, 'absent.pem'), '--ca-file', { readFile: read })),
    ).toMatchObject({
      code: 'CA_FILE',
      message: `--ca-file ${join(dir, 'absent.pem')}: cannot read it: no such file`,
    });
  });
});
