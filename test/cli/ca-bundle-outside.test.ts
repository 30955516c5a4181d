// A CA bundle's text outside its PEM blocks is not copied into a manifest either (review3): a private
// key whose markers are not read as a block (PuTTY's key format, a BEGIN line with a dash missing, a
// label in lower case) was copied whole into certificate-authority-data or tls.caData, with no note.
// Now the certificates alone are copied, and a note says something else was left out.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-ca-outside-'));
const cert = readFileSync(pki.ca.certFile, 'utf8');
const key = readFileSync(pki.ca.keyFile, 'utf8');
const keyLines = key.split('\n').filter((line) => line.length > 40);
const body = key.split('\n').slice(1, -2).join('\n');
/** The key's lines, and base64 of them as certificate-authority-data would carry them. */
const keyForms = [...keyLines, ...keyLines.map((line) => Buffer.from(line).toString('base64').slice(8, 40))];
const plain = JSON.stringify({
  webAPIProviderConfig: { method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.t' },
});
const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);

const FORMS: Record<string, string> = {
  "PuTTY's key format": `PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPrivate-Lines: ${body.split('\n').length}\n${body}\n`,
  'a BEGIN line with a dash missing': key.replace('-----BEGIN', '----BEGIN'),
  'a label in lower case': key.replaceAll('PRIVATE KEY-----', 'private key-----'),
};

describe('a CA bundle with a key outside its PEM blocks', () => {
  it.each(Object.entries(FORMS))(
    '%s: --ca-file and --token-ca-file copy the certificates only, with a note',
    async (what, form) => {
      const bundle = join(dir, `${what.replace(/\W+/g, '-')}.pem`);
      writeFileSync(bundle, `${cert}${form}`);
      for (const flag of ['--ca-file', '--token-ca-file']) {
        const result = await runInProcess([
          'kubeconfig',
          '--server',
          'https://k8s.example.com',
          flag,
          bundle,
          '--config-inline',
          plain,
        ]);
        expect({ code: result.code, stderr: result.stderr }).toEqual({
          code: 0,
          stderr: `webapi-credential: note: ${flag} ${bundle} holds text outside the PEM blocks besides its certificates: it is not copied into the manifest, only the certificates are\n`,
        });
        const kubeconfig = YAML.parse(result.stdout) as {
          clusters: Array<{ cluster: Record<string, string> }>;
          users: Array<{ user: { exec: { args: string[] } } }>;
        };
        const data =
          flag === '--ca-file'
            ? Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString()
            : (
                JSON.parse(
                  kubeconfig.users[0]!.user.exec.args[
                    kubeconfig.users[0]!.user.exec.args.indexOf('--config-inline') + 1
                  ]!,
                ) as { webAPIProviderConfig: { tls: { caData: string } } }
              ).webAPIProviderConfig.tls.caData;
        expect(certificates(data)).toEqual(certificates(cert));
        expect(leaks(result, keyForms)).toEqual([]);
      }
    },
  );

  it('a bundle of certificates alone is copied as it is, with no note', async () => {
    const bundle = join(dir, 'certificates.pem');
    writeFileSync(bundle, `${cert}\n${readFileSync(pki.otherCa.certFile, 'utf8')}`);
    const result = await runInProcess([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--ca-file',
      bundle,
      '--config-inline',
      plain,
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const kubeconfig = YAML.parse(result.stdout) as { clusters: Array<{ cluster: Record<string, string> }> };
    expect(Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString()).toBe(
      readFileSync(bundle, 'utf8'),
    );
  });
});
