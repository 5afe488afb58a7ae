// Writing output files atomically (src/cli/output.rs, the same rules):
// every file of one output is written beside its destination under a
// hidden temporary name and renamed into place only when all are
// complete; on an error the temporary files are removed and what was at
// the destinations is untouched. A destination that is not a file (a
// device such as /dev/null, a named pipe) is written into directly, and a
// symbolic link writes the file it names.

import fs from "node:fs";
import { fileName, ioMessage, join, parent, withFileName } from "./rust.mjs";
import { writeFd } from "./messages.mjs";

/** The temporary file beside a destination: `.NAME.x3dbake-PID.tmp`, as
 * the command line names its own. */
export function tempPath(dest) {
  return withFileName(dest, `.${fileName(dest) ?? ""}.x3dbake-${process.pid}.tmp`);
}

/** Where a symbolic link leads; any other path as it is. */
function followed(dest) {
  let link = false;
  try {
    link = fs.lstatSync(dest).isSymbolicLink();
  } catch {
    return dest;
  }
  if (!link) return dest;
  try {
    return fs.realpathSync.native(dest);
  } catch {
    let to = "";
    try {
      to = fs.readlinkSync(dest);
    } catch {
      // Gone meanwhile.
    }
    return join(parent(dest) ?? "", to);
  }
}

/** `dest` opened for writing when it is not a file or a folder. */
function streamAt(dest) {
  let m;
  try {
    m = fs.statSync(dest);
  } catch {
    return null;
  }
  if (m.isFile() || m.isDirectory()) return null;
  return fs.openSync(dest, fs.constants.O_WRONLY);
}

const cleared = new Set();

/** Removes, once a run for each folder written into, the temporary files
 * that runs killed outright left there (named as tempPath names them, of a
 * process that is gone). Node.js cannot test a file's lock, which the
 * command line also checks: a process of that number that is gone is
 * taken as proof enough. */
function removeStale(dest) {
  if (process.platform !== "linux" || !fs.existsSync("/proc/self")) return;
  const p = parent(dest);
  const folder = p !== null && p !== "" ? p : ".";
  if (cleared.has(folder)) return;
  cleared.add(folder);
  let names;
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^\.(.*)\.x3dbake-(\d+)\.tmp$/s.exec(name);
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || fs.existsSync(`/proc/${pid}`)) continue;
    try {
      fs.unlinkSync(join(folder, name));
    } catch {
      // Someone else's, or gone.
    }
  }
}

/** An error with the command line's text for it. */
export class WriteError extends Error {}

/** Files to write, each `{path, bytes}` (bytes: one Uint8Array or a list):
 * all written, then all renamed into place. Throws a WriteError
 * (`cannot write PATH: …`). */
export function writeAllAtomic(files) {
  const temps = [];
  try {
    for (const { path: named, bytes } of files) {
      const parts = Array.isArray(bytes) ? bytes : [bytes];
      const dest = followed(named);
      let fd;
      try {
        fd = streamAt(dest);
      } catch (e) {
        throw new WriteError(`cannot write ${named}: ${ioMessage(e)}`);
      }
      if (fd !== null) {
        try {
          for (const part of parts) writeFd(fd, part);
        } catch (e) {
          throw new WriteError(`cannot write ${named}: ${ioMessage(e)}`);
        } finally {
          fs.closeSync(fd);
        }
        continue;
      }
      removeStale(dest);
      const temp = tempPath(dest);
      try {
        const out = fs.openSync(temp, "w");
        temps.push({ temp, dest, made: true });
        try {
          for (const part of parts) writeFd(out, part);
        } finally {
          fs.closeSync(out);
        }
      } catch (e) {
        throw new WriteError(`cannot write ${named}: ${ioMessage(e)}`);
      }
    }
    for (const t of temps) {
      try {
        fs.renameSync(t.temp, t.dest);
        t.made = false;
      } catch (e) {
        throw new WriteError(`cannot write ${t.dest}: ${ioMessage(e)}`);
      }
    }
  } finally {
    for (const t of temps) {
      if (t.made) {
        try {
          fs.unlinkSync(t.temp);
        } catch {
          // Never made.
        }
      }
    }
  }
}

/** The file name of a glTF buffer as its URI gives it (percent-encoded,
 * as the library encodes it). */
export function uriEscape(name) {
  let out = "";
  for (const b of Buffer.from(name)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

const DATA_URI = Buffer.from('"uri":"data:application/octet-stream;base64,');

/** A .gltf with its buffer embedded (the library's bytes) as a .gltf and
 * the .bin beside it (the command line's layout without --embed): the
 * JSON is the same but for the buffer's URI. `bin` is null for a
 * document with no buffer. */
export function besideLayout(gltf, binName) {
  const buf = Buffer.from(gltf.buffer, gltf.byteOffset, gltf.byteLength);
  const at = buf.indexOf(DATA_URI);
  if (at < 0) return { gltf: buf, bin: null };
  if (buf.indexOf(DATA_URI, at + 1) >= 0) throw new Error("more than one embedded buffer");
  const from = at + DATA_URI.length;
  const end = buf.indexOf(0x22, from);
  const bin = Buffer.from(buf.subarray(from, end).toString("latin1"), "base64");
  const uri = Buffer.from(`"uri":${JSON.stringify(uriEscape(binName))}`);
  return { gltf: Buffer.concat([buf.subarray(0, at), uri, buf.subarray(end + 1)]), bin };
}
