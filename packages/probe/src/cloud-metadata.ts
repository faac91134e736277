/**
 * The cloud metadata service, for the instance type that DMI does not carry (GCP, Azure).
 *
 * OFF by default: it sends packets to 169.254.169.254, which a benchmark tool must not do
 * unasked (it can be slow, logged, or firewalled, and it is outside the server being measured).
 * probeMachine calls it only with `allowNetwork: true`; the tests never call it.
 */

import http from 'node:http';

const METADATA_HOST = '169.254.169.254';

export interface CloudMetadata {
  provider: 'aws' | 'gcp' | 'azure';
  instanceType: string;
}

export async function queryCloudMetadata(opts: {
  timeoutMs: number;
  /** Ask only this provider's endpoint (as identified from DMI); otherwise try the three. */
  provider?: string | null;
}): Promise<CloudMetadata | null> {
  const timeoutMs = Math.max(50, Math.min(opts.timeoutMs, 5_000));
  const tries: Array<() => Promise<CloudMetadata | null>> = [];
  const want = (p: string) => !opts.provider || opts.provider === p;
  if (want('aws')) tries.push(() => aws(timeoutMs));
  if (want('gcp')) tries.push(() => gcp(timeoutMs));
  if (want('azure')) tries.push(() => azure(timeoutMs));
  const results = await Promise.all(tries.map((t) => t().catch(() => null)));
  return results.find((r) => r !== null) ?? null;
}

async function aws(timeoutMs: number): Promise<CloudMetadata | null> {
  // IMDSv2: a session token first (IMDSv1-only GETs are refused on hardened instances).
  const token = await request(
    'PUT',
    '/latest/api/token',
    { 'X-aws-ec2-metadata-token-ttl-seconds': '60' },
    timeoutMs,
  );
  if (!token) return null;
  const type = await request(
    'GET',
    '/latest/meta-data/instance-type',
    { 'X-aws-ec2-metadata-token': token },
    timeoutMs,
  );
  return type ? { provider: 'aws', instanceType: type.trim() } : null;
}

async function gcp(timeoutMs: number): Promise<CloudMetadata | null> {
  const v = await request(
    'GET',
    '/computeMetadata/v1/instance/machine-type',
    { 'Metadata-Flavor': 'Google' },
    timeoutMs,
  );
  // "projects/123456/machineTypes/n2-standard-4"
  const type = v?.trim().split('/').pop();
  return type ? { provider: 'gcp', instanceType: type } : null;
}

async function azure(timeoutMs: number): Promise<CloudMetadata | null> {
  const v = await request(
    'GET',
    '/metadata/instance/compute/vmSize?api-version=2021-02-01&format=text',
    { Metadata: 'true' },
    timeoutMs,
  );
  return v?.trim() ? { provider: 'azure', instanceType: v.trim() } : null;
}

function request(
  method: string,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<string | null> {
  return new Promise((resolve) => {
    // A hard deadline as well: the socket timeout alone does not bound a connect that never answers.
    const timer = setTimeout(() => {
      req.destroy();
      resolve(null);
    }, timeoutMs);
    timer.unref();
    const req = http.request(
      { host: METADATA_HOST, port: 80, method, path, headers, timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (body.length < 4096) body += c;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve(res.statusCode === 200 ? body : null);
        });
        res.on('error', () => resolve(null));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}
