// `npx x3dbake serve [--port N]`: the converter page (the same page as
// web/, built into the package) served on 127.0.0.1 only. The page
// converts in the browser; this server only hands it its own files, and
// nothing leaves the machine.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { usage } from "./messages.mjs";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
};

/** Serves the page until stopped (Ctrl-C); resolves with an exit code
 * only when it cannot start. */
export function serve(args) {
  let port = 0;
  try {
    const { values } = parseArgs({ args, options: { port: { type: "string" } }, strict: true });
    if (values.port !== undefined) {
      if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
        usage(`--port must be a number from 0 to 65535, not ${values.port}`, "Usage: x3dbake serve [--port N]");
        return Promise.resolve(2);
      }
      port = Number(values.port);
    }
  } catch (e) {
    usage(e.message, "Usage: x3dbake serve [--port N]");
    return Promise.resolve(2);
  }
  const root = fileURLToPath(new URL("../page/", import.meta.url));
  if (!fs.existsSync(path.join(root, "index.html"))) {
    process.stderr.write(`error: the page is not in this package (${root}): build it with npm/build.sh\n`);
    return Promise.resolve(2);
  }
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname).replace(/^\/+/, "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    const file = path.resolve(root, rel || "index.html");
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    });
    if (req.method === "HEAD") res.end();
    else fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.on("error", (e) => {
      process.stderr.write(`error: cannot serve on 127.0.0.1:${port}: ${e.message}\n`);
      resolve(2);
    });
    server.listen(port, "127.0.0.1", () => {
      process.stdout.write(`x3dbake: the converter page at http://127.0.0.1:${server.address().port}/ (Ctrl-C stops it)\n`);
    });
  });
}
