// x3dbake's JavaScript API, for build tools: `await bake(input, options)`
// gives the bytes `x3dbake INPUT -o OUT` writes with the same options, the
// diagnostics as records, the messages as the command line prints them,
// the clips, the report and the files read. The library runs in
// WebAssembly (x3dbake::convert); nothing is printed and nothing is
// written.

import fs from "node:fs/promises";
import { load, guarded } from "./wasm.mjs";
import { diskFetch, realRoot, userFetch } from "./fetch.mjs";

/** Option names of the API (camelCase) and the library's settings. */
const NAMES = {
  format: "format",
  mode: "mode",
  interpolation: "interpolation",
  rate: "rate",
  maxSamples: "max_samples",
  tolerance: "tolerance",
  keepConstant: "keep_constant",
  cycles: "cycles",
  tangents: "tangents",
  clips: "clips",
  compress: "compress",
  interactive: "interactive",
  core: "core",
  visibility: "visibility",
  wide: "wide",
  report: "report",
  timeline: "timeline",
  start: "start",
  end: "end",
  loadTime: "load_time",
  events: "events",
};
/** Options of the API that are not settings. */
const OWN = new Set(["root", "fetch", "quiet", "verbose", "denyWarnings"]);

/** An option that cannot be used (unknown, or refused as the command
 * line refuses its flag). */
export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = "UsageError";
    this.code = "X3DBAKE_USAGE";
  }
}

/** The library's settings (JSON) from the API's options. */
export function settingsJson(options = {}) {
  const s = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || OWN.has(key)) continue;
    const name = NAMES[key] ?? (Object.values(NAMES).includes(key) ? key : null);
    if (name === null) throw new UsageError(`unknown option \`${key}\``);
    if (name === "compress") {
      if (value === false || value === null) continue;
      s.compress = value === true ? "meshopt" : value;
    } else if (name === "clips" && typeof value === "string") s.clips = [value];
    else if (name === "events" && typeof value === "string") s.events = [value];
    else s[name] = value;
  }
  for (const [name, v] of Object.entries(s)) {
    if (typeof v === "number" && !Number.isFinite(v)) {
      throw new UsageError(`${name} must be a finite number, not ${v}`);
    }
  }
  return JSON.stringify(s);
}

/** The scene's bytes, its name and how its files are read. */
async function source(bindings, input, options) {
  if (typeof input === "string") {
    const bytes = await fs.readFile(input);
    const reader = options.fetch
      ? userFetch(options.fetch)
      : diskFetch(bindings, options.root != null ? realRootOrThrow(options.root) : null);
    return { name: input, bytes, reader, files: null };
  }
  if (input && typeof input.name === "string" && input.files && typeof input.files === "object") {
    const entries = input.files instanceof Map ? [...input.files] : Object.entries(input.files);
    const main = entries.find(([p]) => p === input.name);
    if (!main) throw new UsageError(`${input.name} is not among the files given`);
    const files = new bindings.MemoryFiles();
    for (const [p, b] of entries) files.add(p, b instanceof Uint8Array ? b : new Uint8Array(b));
    return { name: input.name, bytes: main[1], reader: null, files };
  }
  throw new TypeError("bake: input is a path, or {name, files: {path: Uint8Array}}");
}

function realRootOrThrow(root) {
  try {
    return realRoot(root);
  } catch (e) {
    throw new UsageError(`cannot read the root folder: ${e.message}`);
  }
}

/**
 * Bakes a scene. `input`: a path (the files it names read from disk,
 * relative to it, inside `options.root` if given) or `{name, files}` (the
 * files in memory, as the page takes them). Options: the command line's,
 * in camelCase (`format`, `mode`, `rate`, `tolerance`, `compress`,
 * `clips`, `timeline`, `events`, ... as x3dbake::Settings), and `root`,
 * `fetch(from, url) => {name, bytes}`, `quiet`, `verbose`,
 * `denyWarnings`.
 */
export async function bake(input, options = {}) {
  const json = settingsJson(options);
  const bindings = await load();
  const problem = guarded(bindings, (b) => b.check(json));
  if (problem) throw new UsageError(problem);
  const src = await source(bindings, input, options);
  const done = guarded(bindings, (b) => b.convert(src.name, src.bytes, json, src.reader, src.files));
  try {
    if (done.failure === "usage") throw new UsageError(done.failure_message);
    if (done.failure) {
      const e = new Error(done.failure_message);
      e.code = "X3DBAKE_FAILED";
      throw e;
    }
    const messages = messagesWith(done, options);
    const inspect = JSON.parse(done.inspect);
    const denied = Boolean(options.denyWarnings) && done.warnings > 0;
    const ok = done.ok && !denied;
    const bytes = done.take_bytes();
    return {
      ok,
      bytes: ok ? bytes : new Uint8Array(0),
      diagnostics: JSON.parse(done.diagnostics),
      messages,
      errors: done.errors,
      warnings: done.warnings,
      clips: inspect.clips ?? [],
      inspect,
      report: ok ? done.report ?? null : null,
      read: JSON.parse(done.read),
    };
  } finally {
    done.free();
  }
}

/** The messages of a bake (`done`) with `-q` (`quiet`, which wins) or
 * `-v` (`verbose`), as the command line prints them. */
export function messagesWith(done, { quiet, verbose }) {
  if (quiet) return done.messages_quiet;
  return verbose ? done.messages_verbose : done.messages;
}

/**
 * What `x3dbake inspect FILE --json` prints, as an object: the clocks,
 * interpolators, routes, clips and tracks, the diagnostics and their
 * counts. Options: `cycles`, `tangents`, `root`, `fetch`.
 */
export async function inspect(input, options = {}) {
  const bindings = await load();
  const src = await source(bindings, input, options);
  const json = JSON.stringify({
    ...(options.cycles !== undefined ? { cycles: options.cycles } : {}),
    ...(options.tangents !== undefined ? { tangents: options.tangents } : {}),
  });
  const done = guarded(bindings, (b) =>
    b.inspect(src.name, src.name, src.bytes, json, src.reader, src.files, false, false),
  );
  try {
    if (done.error) {
      const e = new Error(done.error);
      e.code = "X3DBAKE_FAILED";
      throw e;
    }
    return JSON.parse(done.json);
  } finally {
    done.free();
  }
}

/** The version of x3dbake the package runs. */
export async function version() {
  const bindings = await load();
  return bindings.version();
}
