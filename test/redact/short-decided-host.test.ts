// A letter a secret chose in the URL's host (`127.0.0.{{ env.S < "m" ? "1" : "2" }}`): too short for
// the redactor to find anywhere, so every place that names the URL must name it as shown ([REDACTED]),
// or the host it printed would say which way the secret went. Both loopback addresses reach the same
// local servers, so the two decisions meet the same failure: what is said must not differ.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { closedPort, provider } from '../helpers/integration.js';

const SECRETS = ['abc-secret-4471', 'xyz-secret-4472'];

const config = (port: number) =>
  provider({
    method: 'POST',
    url: `https://127.0.0.{{ env.S < "m" ? "1" : "2" }}:${port}/token`,
    tokenPath: '$.access_token',
    retry: { limit: 0 },
  });

/** What each secret's run says, which must be the same; and none says a secret. */
async function bothWays(args: (port: number) => string[], port: number) {
  const seen = [];
  for (const S of SECRETS) {
    const result = await runInProcess([...args(port), '--config-inline', config(port)], { env: { S } });
    expect(leaks(result, SECRETS)).toEqual([]);
    seen.push(result);
  }
  // Times differ from run to run: a number a JSON key holds, and `N ms`, are not compared.
  const timeless = (text: string) => text.replace(/("\w+"): \d+/g, '$1: 0').replace(/\b\d+ ms\b/g, 'N ms');
  expect(seen.map((r) => ({ ...r, stdout: timeless(r.stdout), stderr: timeless(r.stderr) }))[1]).toEqual(
    seen.map((r) => ({ ...r, stdout: timeless(r.stdout), stderr: timeless(r.stderr) }))[0],
  );
  return seen[0]!;
}

const plain = createServer((_request, response) => response.end('plain'));
await new Promise<void>((resolve) => plain.listen(0, '0.0.0.0', resolve));
afterAll(() => new Promise<void>((resolve) => plain.close(() => resolve())));

describe('a host a secret chose a letter of', () => {
  it('is [REDACTED] in the plain-HTTP message, the same for either letter', async () => {
    const result = await bothWays(() => ['get-token', '--timeout', '5s'], (plain.address() as AddressInfo).port);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^webapi-credential: the server at https:\/\/127\.0\.0\.\[REDACTED\]:\d+ answered in plain HTTP/,
    );
  });

  it("is [REDACTED] in doctor's report: the request's name and each exchange's URL", async () => {
    const result = await bothWays(() => ['doctor', '-o', 'json', '--timeout', '5s'], await closedPort());
    const report = JSON.parse(result.stdout) as {
      stages: { details?: { requests?: { name: string; exchanges: { url: string }[] }[] } }[];
    };
    const requests = report.stages.flatMap((stage) => stage.details?.requests ?? []);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(request.name).toMatch(/^POST https:\/\/127\.0\.0\.\[REDACTED\]:\d+\/token$/);
      for (const exchange of request.exchanges) expect(exchange.url).toMatch(/127\.0\.0\.\[REDACTED\]/);
    }
  });
});
