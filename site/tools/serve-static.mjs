import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';

import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.sqlite': 'application/vnd.sqlite3',
};

/**
 * The built site served as a static host would: files as they are, a directory as its index.html,
 * nothing else. On 127.0.0.1 and a free port.
 */
export async function serveStatic(root) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    let size;
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      size = statSync(file).size;
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // With its length, as a static host sends it: a body cut short is then an error in the browser,
    // never a page that quietly ends early.
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': size,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
