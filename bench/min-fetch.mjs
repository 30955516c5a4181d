// The least a Node plugin can do for a fetch: node:https, the same POST, the token printed as an
// ExecCredential. No config, templates, JSONPath, retries or checks. Its time is the floor under
// the binary's fetch, and shows how much of a fetch is Node itself.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';

// With --system-roots the CA is added to the system roots, as the SPEC asks of every fetch (the way
// the binary does it); without, it is the only root, which spares loading the system store.
const [url, caFile, roots] = process.argv.slice(2);
let trust = { ca: readFileSync(caFile) };
if (roots === '--system-roots') {
  const secureContext = tls.createSecureContext();
  secureContext.context.addCACert(readFileSync(caFile, 'utf8'));
  trust = { secureContext };
}
const request = https.request(
  url,
  { method: 'POST', ...trust, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  (response) => {
    let body = '';
    response.on('data', (chunk) => (body += chunk));
    response.on('end', () => {
      const token = JSON.parse(body).access_token;
      process.stdout.write(
        JSON.stringify({
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          kind: 'ExecCredential',
          status: { token },
        }) + '\n',
      );
    });
  },
);
request.end(
  new URLSearchParams({ grant_type: 'client_credentials', client_secret: process.env.CLIENT_SECRET ?? '' }).toString(),
);
