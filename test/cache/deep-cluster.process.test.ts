// A cluster entry too deep to hash (SPEC "Cache": keys are hashed under the deep-input guard).
// client-go copies the kubeconfig's cluster extension into KUBERNETES_EXEC_INFO as it is; one
// holding 20 000 nested lists made `--cache` exit 1 with "Maximum call stack size exceeded" (the
// ref and inputs keys stringified it outside any guard). Now the cache is off for that call, with a
// --verbose note, and the credential is printed; without --cache nothing changes. The cluster info
// is in the key only when a template reads `cluster` (a fleet shares one credential), so only such
// a config meets the guard; one that does not caches as usual.
import { describe, expect, it } from 'vitest';
import { V1 } from '../helpers/integration.js';
import { cachedConfig, getToken, sandbox, tokenApis } from './support.js';

const startApi = tokenApis();
const PREFIX = 'webapi-credential: ';
const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
const execInfo = `{"apiVersion":"${V1}","kind":"ExecCredential","spec":{"interactive":false,"cluster":{"server":"https://k8s.example.com","config":{"other-tool":${deep}}}}}`;

describe('a cluster entry nested too deeply to hash', () => {
  it('turns the cache off for that call, with a --verbose note, and prints the credential', async () => {
    const api = await startApi();
    const box = sandbox();
    // Reads the cluster: its info is part of the key.
    const config = cachedConfig(api, {
      headers: { Authorization: 'Bearer {{ env.API_KEY }}', 'X-Cluster': '{{ cluster.server }}' },
    });
    for (const call of [1, 2]) {
      const result = await getToken(box, config, ['--cache'], { KUBERNETES_EXEC_INFO: execInfo });
      expect({ call, code: result.code, stderr: result.stderr }).toEqual({ call, code: 0, stderr: '' });
      expect(JSON.parse(result.stdout).status.token).toBe(`token-${call}`);
    }
    const verbose = await getToken(box, config, ['--cache', '-v'], { KUBERNETES_EXEC_INFO: execInfo });
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toContain(
      `${PREFIX}cache: off for this call: the cluster info of KUBERNETES_EXEC_INFO is nested too deeply to hash\n`,
    );
    expect(verbose.stderr).not.toMatch(/Maximum call stack|internal error/);
    expect(api.requests).toHaveLength(3);
  });

  it('does not matter to a config that never reads cluster: the credential is cached as usual', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    for (const call of [1, 2]) {
      const result = await getToken(box, config, ['--cache'], { KUBERNETES_EXEC_INFO: execInfo });
      expect({ call, code: result.code, stderr: result.stderr }).toEqual({ call, code: 0, stderr: '' });
      expect(JSON.parse(result.stdout).status.token).toBe('token-1');
    }
    expect(api.requests).toHaveLength(1);
  });
});
