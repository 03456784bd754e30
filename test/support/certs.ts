/**
 * A self-signed certificate (its own CA) made with Debian's `openssl` for the tests' TLS servers:
 * `NAME-key.pem` and `NAME-cert.pem` in `dir` (an EC P-256 key, valid one day), for the common name `cn`
 * and, when given, a subjectAltName (`IP:127.0.0.1`, `DNS:host`). Returns the two paths.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export function selfSignedCert(
  dir: string,
  name: string,
  opts: { cn?: string; san?: string } = {},
): { key: string; cert: string } {
  const key = join(dir, `${name}-key.pem`);
  const cert = join(dir, `${name}-cert.pem`);
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
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      `/CN=${opts.cn ?? '127.0.0.1'}`,
      ...(opts.san ? ['-addext', `subjectAltName=${opts.san}`] : []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { key, cert };
}
