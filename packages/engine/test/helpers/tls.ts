import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Our own config so the result does not depend on the system openssl.cnf defaults.
const OPENSSL_CNF = `[req]
distinguished_name = dn
prompt = no

[dn]
CN = localhost

[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[v3_leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

/**
 * Creates, in `dir`, a CA and a certificate signed by it for CN/SAN localhost and IP 127.0.0.1
 * (EC P-256, valid 1 day). The leaf is usable both as a server and as a client certificate.
 */
export async function makeTestCertificates(
  dir: string,
): Promise<{ caFile: string; certFile: string; keyFile: string }> {
  const cnf = path.join(dir, 'openssl.cnf');
  const caFile = path.join(dir, 'ca.crt');
  const caKey = path.join(dir, 'ca.key');
  const certFile = path.join(dir, 'server.crt');
  const keyFile = path.join(dir, 'server.key');
  const csr = path.join(dir, 'server.csr');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await writeFile(cnf, OPENSSL_CNF);

  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    caKey,
    '-out',
    caFile,
    '-days',
    '1',
    '-subj',
    '/CN=redis-benchdb test CA',
    '-config',
    cnf,
    '-extensions',
    'v3_ca',
  ]);
  await run('openssl', [
    'req',
    '-new',
    ...ec,
    '-keyout',
    keyFile,
    '-out',
    csr,
    '-subj',
    '/CN=localhost',
    '-config',
    cnf,
  ]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caFile,
    '-CAkey',
    caKey,
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-out',
    certFile,
    '-days',
    '1',
    '-extfile',
    cnf,
    '-extensions',
    'v3_leaf',
  ]);
  return { caFile, certFile, keyFile };
}
