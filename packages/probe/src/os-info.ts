/**
 * OS name, release and kernel, from files and Node's os module only. systeminformation's
 * si.osInfo() is not used: it runs `hostname -f` synchronously, which may send a DNS query and
 * blocks the event loop, and the probe must neither touch the network nor hang.
 */

import os from 'node:os';
import { type Fact, firstKnown, known, missing } from './fact.js';
import { readSys, readTrimmed } from './sysfs.js';

export interface OsFacts {
  distro: Fact<string>;
  release: Fact<string>;
  kernel: Fact<string>;
}

/** `host` false means `root` is not this machine, so the os module (which describes it) is not asked. */
export function readOsFacts(root: string, platform: string, host: boolean): OsFacts {
  const hostKernel: Fact<string> = host
    ? known(os.release())
    : missing('os module not consulted for a crafted root');
  if (platform === 'linux') {
    const rel = readOsRelease(root);
    return { ...rel, kernel: firstKnown(rel.kernel, hostKernel) };
  }
  if (platform === 'darwin') {
    // The same file sw_vers reads.
    const file = '/System/Library/CoreServices/SystemVersion.plist';
    const r = readSys(root, file);
    const key = (k: string) =>
      r.ok ? new RegExp(`<key>${k}</key>\\s*<string>([^<]*)</string>`).exec(r.text)?.[1] : undefined;
    const name = key('ProductName');
    const version = key('ProductVersion');
    const why = r.ok ? `no ProductName/ProductVersion in ${file}` : r.reason;
    return {
      distro: name ? known(name) : missing(why),
      release: version ? known(version) : missing(why),
      kernel: hostKernel,
    };
  }
  if (platform === 'win32' && host) {
    // os.version() is the edition ("Windows 11 Pro"), os.release() the build ("10.0.22631").
    return { distro: known(os.version()), release: known(os.release()), kernel: hostKernel };
  }
  const why = `no OS release source known for platform ${platform}`;
  return { distro: missing(why), release: missing(why), kernel: hostKernel };
}

/** /etc/os-release NAME and VERSION_ID; the kernel from /proc/sys/kernel/osrelease. */
export function readOsRelease(root: string): OsFacts {
  let distro: Fact<string>;
  let release: Fact<string>;
  const r = readSys(root, '/etc/os-release');
  if (!r.ok) {
    distro = missing(r.reason);
    release = missing(r.reason);
  } else {
    const kv = new Map<string, string>();
    for (const line of r.text.split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (m?.[1] && m[2] !== undefined) kv.set(m[1], m[2].replace(/^["']|["']$/g, ''));
    }
    const name = kv.get('NAME');
    // Rolling distributions (Arch, Gentoo, Debian sid) have no VERSION_ID.
    const version = kv.get('VERSION_ID');
    distro = name ? known(name) : missing('no NAME in /etc/os-release');
    release = version
      ? known(version)
      : missing('no VERSION_ID in /etc/os-release (a rolling distribution?)');
  }
  const k = readTrimmed(root, '/proc/sys/kernel/osrelease');
  return {
    distro,
    release,
    kernel: k ? known(k) : missing('file /proc/sys/kernel/osrelease absent'),
  };
}
