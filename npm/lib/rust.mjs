// What the command line's Rust standard library does with paths, numbers
// and I/O errors, done the same way here, so that the package names files
// and reports failures as `x3dbake` does: std::path's components, parent,
// file name, extension and join (Unix rules), f64's and integers' parsing,
// and an I/O error's text ("No such file or directory (os error 2)").

import os from "node:os";

/** A path's components as std::path::Path::components gives them: a root,
 * a leading `.`, names and `..`; each with where it ends in the text. */
export function components(p) {
  const out = [];
  let i = 0;
  if (p.startsWith("/")) {
    out.push({ kind: "root", text: "/", end: 1 });
    i = 1;
  }
  let first = true;
  while (i <= p.length) {
    let j = p.indexOf("/", i);
    if (j < 0) j = p.length;
    const part = p.slice(i, j);
    if (part === "..") out.push({ kind: "parent", text: part, end: j });
    else if (part === ".") {
      // Only a leading `.` of a relative path is kept.
      if (first && out.length === 0) out.push({ kind: "cur", text: part, end: j });
    } else if (part !== "") out.push({ kind: "normal", text: part, end: j });
    first = false;
    if (j === p.length) break;
    i = j + 1;
  }
  return out;
}

/** Path::parent: the path without its last component (the text before
 * it, separators and `.` after it dropped); null for a root or "". */
export function parent(p) {
  const c = components(p);
  if (c.length === 0) return null;
  const last = c[c.length - 1];
  if (last.kind === "root") return null;
  if (c.length === 1) return "";
  return p.slice(0, c[c.length - 2].end);
}

/** Path::file_name: the last component when it is a name. */
export function fileName(p) {
  const c = components(p);
  const last = c[c.length - 1];
  return last && last.kind === "normal" ? last.text : null;
}

/** Path::extension: after the last dot of the file name (none for
 * `.name` or `..`). */
export function extension(p) {
  const name = fileName(p);
  if (name === null || name === "..") return null;
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? null : name.slice(dot + 1);
}

/** Path::join (PathBuf::push): `q` after `base`, a separator between
 * unless `base` is empty or ends in one; an absolute `q` replaces it. */
export function join(base, q) {
  if (q.startsWith("/")) return q;
  if (base === "") return q;
  return base.endsWith("/") ? base + q : `${base}/${q}`;
}

/** Path::with_file_name. */
export function withFileName(p, name) {
  const base = fileName(p) !== null ? parent(p) ?? p : p;
  return join(base, name);
}

/** Path::with_extension: the file name's extension replaced. */
export function withExtension(p, ext) {
  const name = fileName(p);
  if (name === null) return p;
  const c = components(p);
  const end = c[c.length - 1].end;
  const start = end - name.length;
  const dot = name === ".." ? -1 : name.lastIndexOf(".");
  const stem = dot <= 0 ? name : name.slice(0, dot);
  return p.slice(0, start) + stem + (ext === "" ? "" : `.${ext}`);
}

/** std::path::absolute with `.` and `..` then taken lexically (the
 * command line's `normal`): the components' names. */
export function normal(p) {
  const abs = p.startsWith("/") ? p : `${process.cwd()}/${p}`;
  const names = [];
  for (const part of abs.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") names.pop();
    else names.push(part);
  }
  return names;
}

/** Compares paths component by component (PathBuf's order). */
export function comparePaths(a, b) {
  // Kinds order as Rust's Component enum: root before cur, parent, normal.
  const rank = { root: 1, cur: 2, parent: 3, normal: 4 };
  const ka = components(a);
  const kb = components(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    if (ka[i].kind !== kb[i].kind) return rank[ka[i].kind] - rank[kb[i].kind];
    const d = Buffer.compare(Buffer.from(ka[i].text), Buffer.from(kb[i].text));
    if (d !== 0) return d;
  }
  return ka.length - kb.length;
}

/** Rust's char::is_whitespace. */
const RUST_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
export const isRustSpace = (c) => RUST_SPACE.test(c);

/** Rust's str::trim_start. */
export function trimStart(s) {
  let i = 0;
  while (i < s.length && isRustSpace(s[i])) i++;
  return s.slice(i);
}

/** f64::from_str, or null where Rust refuses it ("invalid float
 * literal"). */
export function parseF64(s) {
  if (!/^[+-]?(inf|infinity|nan|(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)$/i.test(s)) return null;
  const body = s.replace(/^[+-]/, "").toLowerCase();
  const negative = s.startsWith("-");
  if (body === "inf" || body === "infinity") return negative ? -Infinity : Infinity;
  if (body === "nan") return NaN;
  return Number(s);
}

/** An unsigned integer as Rust parses one: the value (a BigInt), or the
 * error's text. */
export function parseUnsigned(s, max) {
  if (s === "") return { error: "cannot parse integer from empty string" };
  if (!/^\+?\d+$/.test(s)) return { error: "invalid digit found in string" };
  const v = BigInt(s.replace(/^\+/, ""));
  if (v > max) return { error: "number too large to fit in target type" };
  return { value: v };
}

/** glibc's strerror, as Rust's io::Error shows an OS error. */
const STRERROR = {
  EPERM: "Operation not permitted",
  ENOENT: "No such file or directory",
  EIO: "Input/output error",
  ENXIO: "No such device or address",
  EBADF: "Bad file descriptor",
  EAGAIN: "Resource temporarily unavailable",
  ENOMEM: "Cannot allocate memory",
  EACCES: "Permission denied",
  EBUSY: "Device or resource busy",
  EEXIST: "File exists",
  EXDEV: "Invalid cross-device link",
  ENODEV: "No such device",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  EINVAL: "Invalid argument",
  ENFILE: "Too many open files in system",
  EMFILE: "Too many open files",
  ETXTBSY: "Text file busy",
  EFBIG: "File too large",
  ENOSPC: "No space left on device",
  ESPIPE: "Illegal seek",
  EROFS: "Read-only file system",
  EMLINK: "Too many links",
  EPIPE: "Broken pipe",
  ENAMETOOLONG: "File name too long",
  ENOTEMPTY: "Directory not empty",
  ELOOP: "Too many levels of symbolic links",
  EOPNOTSUPP: "Operation not supported",
  EDQUOT: "Disk quota exceeded",
};

/** A Node.js I/O error as Rust's io::Error shows it. */
export function ioMessage(e) {
  const n = e && e.code ? os.constants.errno[e.code] : undefined;
  if (n !== undefined && STRERROR[e.code]) return `${STRERROR[e.code]} (os error ${n})`;
  if (e && e.code === "ERR_FS_FILE_TOO_LARGE") return "larger than Node.js reads at once (2 GiB)";
  return String(e && e.message ? e.message : e);
}
