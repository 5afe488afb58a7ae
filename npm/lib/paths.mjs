// Where a run reads and writes (src/cli/paths.rs, the same rules): folders
// given as inputs walked for X3D files, each input's output named inside
// `-o DIR/`, and every path the run writes checked against every file it
// reads and every other path it writes, before anything is written.

import fs from "node:fs";
import zlib from "node:zlib";
import { comparePaths, extension, fileName, ioMessage, join, normal, parent, trimStart, withFileName } from "./rust.mjs";

/** The extensions of X3D files, each also gzipped (`.gz` after it). */
const EXTENSIONS = ["x3d", "x3dv", "wrl", "x3dj", "x3dz", "x3dvz", "wrz"];
/** Looked into when a folder is walked: taken when their first bytes say
 * X3D or VRML. */
const SNIFFED = ["json", "xml", "gz", "vrml"];

export const isDir = (p) => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const isFile = (p) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The inputs given, a folder replaced by every X3D file under it (in
 * name order, hidden entries and linked folders skipped). Each is
 * `{path, walkedFrom}`; throws a usage message. */
export function expand(given) {
  const inputs = [];
  for (const g of given) {
    if (g !== "-" && isDir(g)) {
      const before = inputs.length;
      try {
        walk(g, g, inputs);
      } catch (e) {
        throw new Usage(`cannot read the folder ${g}: ${ioMessage(e)}`);
      }
      if (inputs.length === before) {
        throw new Usage(`no X3D file under ${g} (.x3d .x3dv .wrl .x3dj .x3dz .x3dvz .wrz, gzipped too)`);
      }
    } else inputs.push({ path: g, walkedFrom: null });
  }
  return inputs;
}

/** A usage error (exit 2, with clap's usage lines). */
export class Usage extends Error {}

function walk(root, dir, out) {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  entries.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  for (const e of entries) {
    if (e.name.startsWith(".")) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) walk(root, path, out);
    else if ((e.isFile() || (e.isSymbolicLink() && isFile(path))) && isX3d(path)) {
      out.push({ path, walkedFrom: root });
    }
  }
}

/** True for a file an X3D browser would read: an X3D extension, or a
 * sniffed one whose first bytes are X3D. */
function isX3d(path) {
  const name = (fileName(path) ?? "").toLowerCase();
  const inner = name.endsWith(".gz") ? name.slice(0, -3) : name;
  const dot = inner.lastIndexOf(".");
  const ext = dot < 0 ? "" : inner.slice(dot + 1);
  if (EXTENSIONS.includes(ext)) return true;
  const d = name.lastIndexOf(".");
  const sniffed = d < 0 ? "" : name.slice(d + 1);
  return SNIFFED.includes(sniffed) && looksLikeX3d(path);
}

/** The first 4 KiB (decompressed when gzipped) hold an X3D or VRML
 * header, an `<X3D` element or an `"X3D"` JSON member. */
function looksLikeX3d(path) {
  let head;
  try {
    const fd = fs.openSync(path, "r");
    try {
      const raw = Buffer.alloc(65536);
      const n = fs.readSync(fd, raw, 0, raw.length, 0);
      const first = raw.subarray(0, Math.min(n, 4096));
      if (first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b) {
        try {
          head = zlib.gunzipSync(raw.subarray(0, n), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, 4096);
        } catch {
          head = Buffer.alloc(0);
        }
      } else head = first;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
  let text = head.toString("utf8");
  while (text.startsWith("\ufeff")) text = text.slice(1);
  text = trimStart(text);
  return (
    text.startsWith("#X3D") ||
    text.startsWith("#VRML V2") ||
    text.includes("<X3D") ||
    (text.startsWith("{") && text.includes('"X3D"'))
  );
}

/** An input's name with its X3D extension (and `.gz`) taken off. */
export function stem(input) {
  if (input === "-") return "stdin";
  const name = fileName(input) ?? "";
  const inner = name.length >= 3 && name.slice(-3).toLowerCase() === ".gz" ? name.slice(0, -3) : name;
  const dot = inner.lastIndexOf(".");
  const s = dot > 0 ? inner.slice(0, dot) : inner;
  return s === "" ? "scene" : s;
}

/** The output files of inputs baked into the folder `dir` (see
 * src/cli/paths.rs outputs_in); throws a usage message on a clash. */
export function outputsIn(dir, inputs, ext) {
  const places = inputs.map((i) => {
    if (i.path === "-") return null;
    const folder = normal(parent(i.path) ?? "");
    const base = i.walkedFrom !== null ? normal(i.walkedFrom) : folder;
    return { folder, base };
  });
  let common = null;
  for (const p of places) {
    if (!p) continue;
    if (common === null) common = p.base.slice();
    else {
      let n = 0;
      while (n < common.length && n < p.base.length && common[n] === p.base[n]) n++;
      common = common.slice(0, n);
    }
  }
  const below = places.map((p) => {
    if (!p || common === null) return "";
    const under = common.every((c, i) => p.folder[i] === c) && p.folder.length >= common.length;
    // (A folder outside the common one keeps its whole path, as names.)
    return (under ? p.folder.slice(common.length) : p.folder).join("/");
  });
  const outputs = inputs.map((i, k) => join(join(dir, below[k]), `${stem(i.path)}.${ext}`));
  const sorted = (list) => list.map((_, k) => k).sort((a, b) => comparePaths(list[a], list[b]));
  const clashing = new Array(outputs.length).fill(false);
  const order = sorted(outputs);
  for (let k = 0; k + 1 < order.length; k++) {
    if (comparePaths(outputs[order[k]], outputs[order[k + 1]]) === 0) {
      clashing[order[k]] = clashing[order[k + 1]] = true;
    }
  }
  for (let k = 0; k < outputs.length; k++) {
    if (clashing[k]) {
      const name = fileName(inputs[k].path) ?? "stdin";
      outputs[k] = withFileName(outputs[k], `${name}.${ext}`);
    }
  }
  const again = sorted(outputs);
  for (let k = 0; k + 1 < again.length; k++) {
    if (comparePaths(outputs[again[k]], outputs[again[k + 1]]) === 0) {
      const a = Math.min(again[k], again[k + 1]);
      const b = Math.max(again[k], again[k + 1]);
      throw new Usage(`${inputs[a].path} and ${inputs[b].path} would both be written to ${outputs[a]}`);
    }
  }
  return outputs;
}

/** A file as the file system knows it: its device and inode, or for a
 * file not made yet its folder's real path and its name. */
function identity(path) {
  try {
    const m = fs.statSync(path, { bigint: true });
    return `inode:${m.dev}:${m.ino}`;
  } catch {
    // Not there yet: where it would be made.
  }
  let p = path;
  try {
    p = join(parent(path) ?? "", fs.readlinkSync(path));
  } catch {
    // Not a link.
  }
  const pp = parent(p);
  const folder = pp !== null && pp !== "" ? pp : ".";
  let real;
  try {
    real = fs.realpathSync.native(folder);
  } catch {
    real = `/${normal(folder).join("/")}`;
  }
  return `path:${join(real, fileName(p) ?? "")}`;
}

/** True for a destination that is a device, a pipe or a socket. */
export function isStream(path) {
  try {
    const m = fs.statSync(path);
    return !m.isFile() && !m.isDirectory();
  } catch {
    return false;
  }
}

/** Refuses a run that would write over a file it reads or write one file
 * twice (`writes`: `{what, path}`); the message names both. */
export function check(reads, writes) {
  const read = new Map();
  for (const r of reads) read.set(identity(r), r);
  const written = new Map();
  for (const w of writes) {
    if (isStream(w.path)) continue;
    const id = identity(w.path);
    if (read.has(id)) {
      return `${w.what} ${w.path} is the input ${read.get(id)}: refusing to overwrite it`;
    }
    if (written.has(id)) {
      const other = written.get(id);
      return `${other.what} ${other.path} and ${w.what} ${w.path} are the same file: give each its own name`;
    }
    written.set(id, w);
  }
  return null;
}

/** The format a file name's extension names, if any. */
export function formatOf(path) {
  const ext = extension(path);
  if (ext === null) return null;
  const e = ext.toLowerCase();
  return ["glb", "gltf", "csv"].includes(e) ? e : null;
}
