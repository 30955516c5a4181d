// The bench's token API: HTTPS on loopback with the certificate given in argv, in its own process
// so that the harness's synchronous spawns never stall it. Prints its port, then serves
// POST /token (an OAuth2-style answer) and GET /count (requests to /token so far).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [certFile, keyFile] = process.argv.slice(2);
let count = 0;
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  if (req.url === '/count') {
    res.end(String(count));
    return;
  }
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    count++;
    const ok = req.method === 'POST' && new URLSearchParams(body).get('client_secret') === 'bench-secret-value';
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(
      ok
        ? JSON.stringify({ access_token: `bench-token-${count}`, token_type: 'Bearer', expires_in: 3600 })
        : '{"error":"invalid_client"}',
    );
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
