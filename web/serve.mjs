// Serves a folder on localhost only (the built web page): node web/serve.mjs [DIR] [PORT]
// DIR defaults to this file's folder (build/web after web/build.sh), PORT to 8080 (0 = any free port).
// Prints "serving DIR at http://127.0.0.1:PORT/" once listening.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(process.argv[2] || path.dirname(fileURLToPath(import.meta.url)));
const port = Number(process.argv[3] ?? 8080);
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.json': 'application/json', '.css': 'text/css' };

export function serve(root, listenPort, onListening) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.normalize(path.join(root, decodeURIComponent(url.pathname)));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n'); return; }
      res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' }).end(data);
    });
  });
  server.listen(listenPort, '127.0.0.1', () => onListening && onListening(server.address().port));
  return server;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  serve(dir, port, (p) => console.log(`serving ${dir} at http://127.0.0.1:${p}/`));
}
