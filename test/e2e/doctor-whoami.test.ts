// doctor's cluster stage against the real `kubectl auth whoami` of kubectl 1.33: the same kubeconfig
// (written by the `kubeconfig` generator), the same API server stand-in, the same username and
// groups, whichever SelfSubjectReview version the server has.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../helpers/apiserver.js';
import { runCli, runCommand } from '../helpers/cli.js';
import { installedDir } from '../helpers/installed.js';
import { writeTemp } from '../helpers/integration.js';
import { KUBECTL_1_33, makeKube, requireKubectl } from '../helpers/kubectl.js';
import { makePki } from '../helpers/pki.js';
import { describeWith } from '../helpers/tools.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const API_KEY = 'whoami-api-key-2Lp9';
const TOKEN = 'whoami-opaque-token-Xr81';
const USER = { username: 'bob@example.test', uid: 'uid-bob', groups: ['platform', 'viewers', 'system:authenticated'] };
const INSTALLED = installedDir();
let tokenApi: TokenApi;
const servers: ApiServer[] = [];

beforeAll(async () => {
  tokenApi = await startTokenApi((request, response) =>
    request.headers['x-api-key'] === API_KEY
      ? json(response, 200, { token: TOKEN, expires_in: 600 })
      : json(response, 401, { error: 'invalid_client' }),
  );
});

afterAll(async () => {
  await Promise.all([tokenApi?.close(), ...servers.map((server) => server.close())]);
});

describeWith(KUBECTL_1_33)('doctor and kubectl auth whoami', () => {
  it.each([[['v1', 'v1beta1'] as const], [['v1beta1'] as const]])(
    'name the same user with SelfSubjectReview %j',
    async (apis) => {
      const apiserver = await startApiServer({
        accepts: (token) => (token === TOKEN ? USER : undefined),
        selfSubjectReview: [...apis],
      });
      servers.push(apiserver);
      const config = writeTemp(
        'whoami.json',
        JSON.stringify({
          webAPIProviderConfig: {
            method: 'POST',
            url: `${tokenApi.url}/token`,
            headers: { 'x-api-key': '{{ env.API_KEY }}' },
            tokenPath: '$.token',
            expiresInPath: '$.expires_in',
            tls: { caFile: makePki().ca.certFile },
          },
        }),
      );
      const printed = await runCli([
        'kubeconfig',
        '--server',
        apiserver.url,
        '--ca-file',
        apiserver.caFile,
        '--name',
        'whoami',
        '--config',
        config,
      ]);
      expect(printed.code, printed.stderr).toBe(0);
      const kube = makeKube();
      const kubeconfig = writeTemp('kubeconfig.yaml', printed.stdout);
      const env = {
        PATH: `${INSTALLED}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
        HOME: kube.home,
        KUBECONFIG: kubeconfig,
        API_KEY,
      };

      const whoami = await runCommand(requireKubectl(KUBECTL_1_33), ['auth', 'whoami', '-o', 'json'], env);
      expect({ code: whoami.code, stderr: whoami.stderr }).toEqual({ code: 0, stderr: '' });
      const kubectlUser = (
        JSON.parse(whoami.stdout) as { status: { userInfo: { username: string; groups: string[] } } }
      ).status.userInfo;

      const doctor = await runCli(['doctor', '--kubeconfig', kubeconfig, '-o', 'json'], { env });
      expect({ code: doctor.code, stderr: doctor.stderr }).toEqual({ code: 0, stderr: '' });
      const report = JSON.parse(doctor.stdout) as {
        stages: Array<{ name: string; details: { user?: { username: string; groups: string[] }; reviewApi?: string } }>;
      };
      const cluster = report.stages.find((stage) => stage.name === 'cluster')!.details;
      expect({ username: cluster.user?.username, groups: cluster.user?.groups }).toEqual({
        username: kubectlUser.username,
        groups: kubectlUser.groups,
      });
      expect(kubectlUser.username).toBe(USER.username);
      expect(cluster.reviewApi).toBe(`authentication.k8s.io/${apis[0]}`);
      for (const result of [doctor, whoami])
        for (const secret of [API_KEY, TOKEN]) expect(result.stdout + result.stderr).not.toContain(secret);
    },
  );
});
