// A local HTTPS server for advisory-feed tests, with a self-signed certificate made by openssl at test time:
// advisory URLs must be https, so the tests download over TLS as production does. Pass `ca` to the download
// (SyncOptions.ca), or NODE_EXTRA_CA_CERTS=<caFile> to a child process.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface TestHttpsServer {
  base: string; // https://127.0.0.1:<port>
  ca: string; // the certificate, PEM
  caFile: string;
  close(): Promise<void>;
}

export async function startHttpsServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestHttpsServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'https-test-'));
  const keyFile = path.join(dir, 'key.pem');
  const caFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      caFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'pipe' },
  );
  const ca = fs.readFileSync(caFile, 'utf8');
  const server = https.createServer({ key: fs.readFileSync(keyFile), cert: ca }, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca,
    caFile,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
