// The files a scene names (Inlines, EXTERNPROTOs, textures), read from
// disk on demand as the command line's FileFetch reads them
// (src/load/link.rs): the URL taken relative to the file that names it
// (local names only, `file:` dropped, other schemes refused, %xx decoded:
// the library's own rule, through the module's `resolve`), only regular
// files, and with a root only files whose real path (every link followed)
// is inside it. Failures are told as Rust tells them, for the messages.

import fs from "node:fs";
import { ioMessage } from "./rust.mjs";

/** The largest file read (spans are 32-bit offsets). */
export const MAX_FILE_BYTES = 0xffffffff;

/** The root's real path, as FileFetch::within takes it; throws the
 * message (`cannot read the --root folder: …` is the caller's). */
export function realRoot(root) {
  let real;
  try {
    real = fs.realpathSync.native(root);
  } catch (e) {
    throw new Error(ioMessage(e));
  }
  let dir = false;
  try {
    dir = fs.statSync(real).isDirectory();
  } catch {
    dir = false;
  }
  if (!dir) throw new Error(`${real} is not a folder`);
  return real;
}

const inside = (real, root) => real === root || real.startsWith(root.endsWith("/") ? root : `${root}/`);

/** A reader for the module: `fetch(from, url)` gives `{name, bytes}` or
 * `{error}`; `read` lists the files it read, in order. `root`: a real
 * path from realRoot, or null. */
export function diskFetch(bindings, root) {
  const read = [];
  return {
    read,
    fetch(from, url) {
      const where = bindings.resolve(from, url);
      const error = where.error;
      let path = where.path;
      where.free();
      if (error !== undefined && error !== null) return { error };
      try {
        if (root !== null) {
          const real = fs.realpathSync.native(path);
          if (!inside(real, root)) return { error: `not read: outside --root ${root}` };
          path = real;
        }
        const meta = fs.statSync(path);
        if (!meta.isFile()) return { error: "not a regular file" };
        if (meta.size > MAX_FILE_BYTES) return { error: "larger than 4 GiB" };
        const bytes = fs.readFileSync(path);
        read.push(path);
        return { name: path, bytes };
      } catch (e) {
        return { error: ioMessage(e) };
      }
    },
  };
}

/** A reader calling the user's own `fetch(from, url)` (which gives
 * `{name, bytes}` or throws). */
export function userFetch(f) {
  const read = [];
  return {
    read,
    fetch(from, url) {
      try {
        const got = f(from, url);
        if (!got || typeof got.name !== "string" || !(got.bytes instanceof Uint8Array)) {
          return { error: "the fetch gave no {name, bytes}" };
        }
        if (!read.includes(got.name)) read.push(got.name);
        return { name: got.name, bytes: got.bytes };
      } catch (e) {
        return { error: String(e && e.message ? e.message : e) };
      }
    },
  };
}
