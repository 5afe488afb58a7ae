// `npx x3dbake`: the command line (src/cli/) in Node.js, the library in
// WebAssembly. The same flags, outputs, messages (standard error) and exit
// codes: 0 ok, 1 an input failed, 2 usage or I/O. Flags are parsed with
// node:util's parseArgs and mapped to the library's settings as
// src/cli/args.rs maps them; the checks, the batch, the overwrite refusals
// and the atomic writes follow src/cli/ step by step. What WebAssembly here
// cannot do (threads: -j; --sync) is refused as a usage error.

import fs from "node:fs";
import tty from "node:tty";
import { parseArgs } from "node:util";
import { load, guarded } from "./wasm.mjs";
import { diskFetch, MAX_FILE_BYTES, realRoot } from "./fetch.mjs";
import { Usage, check, expand, formatOf, isDir, isStream, outputsIn, stem } from "./paths.mjs";
import { besideLayout, tempPath, writeAllAtomic, WriteError } from "./output.mjs";
import { eprint, error, printable, usage, writeFd, colours } from "./messages.mjs";
import { fileName, ioMessage, parent, parseF64, parseUnsigned, withExtension } from "./rust.mjs";
import { messagesWith } from "./index.mjs";
import * as help from "./help.mjs";

const OK = 0;
const INVALID = 1;
const USAGE_OR_IO = 2;

/** A clap-style error: printed, exit 2. */
class ClapError extends Error {
  constructor(text) {
    super(text);
    this.text = text;
  }
}

const MORE = "\nFor more information, try '--help'.\n";
const USAGE_LINES = "Usage: x3dbake [OPTIONS] [INPUT]...\n       x3dbake <COMMAND>";

/** The options of a bake: parseArgs' table, clap's value names and
 * parsers. */
const BAKE = {
  output: { type: "string", short: "o", value: "<OUTPUT>" },
  format: { type: "string", value: "<FORMAT>", values: ["gltf", "glb", "csv"] },
  mode: { type: "string", value: "<MODE>", values: ["exact", "sample"] },
  rate: { type: "string", value: "<RATE>", parse: "f64" },
  "max-samples": { type: "string", value: "<N>", parse: "u64" },
  interpolation: { type: "string", value: "<INTERPOLATION>", values: ["linear", "step", "cubic"] },
  tolerance: { type: "string", value: "<T>", parse: "f64" },
  "keep-constant": { type: "boolean" },
  report: { type: "string", value: "<FILE.html>" },
  clip: { type: "string", value: "<NAME>", many: true },
  embed: { type: "boolean" },
  compress: { type: "string", value: "[=<HOW>]", values: ["meshopt", "quantize"], equals: true },
  interactive: { type: "boolean" },
  core: { type: "boolean" },
  visibility: { type: "string", value: "<VISIBILITY>", values: ["extension", "scale"] },
  sync: { type: "boolean" },
  depfile: { type: "string", value: "<FILE>" },
  jobs: { type: "string", short: "j", value: "<N>", parse: "u16" },
  wide: { type: "boolean" },
  timeline: { type: "boolean" },
  "load-time": { type: "string", value: "<SECONDS>", parse: "f64", negative: true },
  start: { type: "string", value: "<START>", parse: "f64", negative: true },
  end: { type: "string", value: "<END>", parse: "f64", negative: true },
  event: { type: "string", value: "<EVENT>", many: true, parse: "event" },
  cycles: { type: "string", value: "<CYCLES>", parse: "cycles" },
  tangents: { type: "string", value: "<TANGENTS>", values: ["as-written", "c1"] },
  root: { type: "string", value: "<DIR>" },
  quiet: { type: "boolean", short: "q" },
  verbose: { type: "boolean", short: "v" },
  "deny-warnings": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
};

/** The options of `inspect`. */
const INSPECT = {
  json: { type: "boolean" },
  cycles: BAKE.cycles,
  tangents: BAKE.tangents,
  root: BAKE.root,
  quiet: BAKE.quiet,
  verbose: BAKE.verbose,
  "deny-warnings": BAKE["deny-warnings"],
  help: BAKE.help,
};

const shown = (name, spec) => (spec.type === "boolean" ? `--${name}` : `--${name}${spec.equals ? "" : " "}${spec.value}`);

/** Parses arguments as clap would for this table: values checked in
 * order, then conflicts, then requirements. Returns `{values, positionals}`
 * (each value a list, in order). */
function parse(args, table, bindings) {
  // --compress takes its value only after `=`: alone it is meshopt.
  const end = args.indexOf("--");
  const given = args.map((a, i) => (a === "--compress" && (end < 0 || i < end) ? "--compress=meshopt" : a));
  const options = {};
  for (const [name, spec] of Object.entries(table)) {
    options[name] = { type: spec.type, multiple: true, ...(spec.short ? { short: spec.short } : {}) };
  }
  const { tokens } = parseArgs({ args: given, options, allowPositionals: true, strict: false, tokens: true });
  const values = {};
  const positionals = [];
  const order = [];
  for (const t of tokens) {
    if (t.kind === "positional") {
      positionals.push(t.value);
      continue;
    }
    if (t.kind !== "option") continue;
    const spec = table[t.name];
    if (!spec) throw new ClapError(`error: unexpected argument '${t.rawName}' found\n\n${USAGE_LINES}\n${MORE}`);
    const label = shown(t.name, spec);
    if (spec.type === "boolean") {
      if (t.value !== undefined) {
        throw new ClapError(`error: unexpected value '${t.value}' for '--${t.name}' found; no more were expected\n\n${USAGE_LINES}\n${MORE}`);
      }
      if (values[t.name] && t.name !== "help") {
        throw new ClapError(`error: the argument '${label}' cannot be used multiple times\n\n${USAGE_LINES}\n${MORE}`);
      }
      values[t.name] = [true];
      order.push(t.name);
      continue;
    }
    const possible = spec.values ? `  [possible values: ${spec.values.join(", ")}]\n` : "";
    let v = t.value;
    if (v === undefined || (!t.inlineValue && v.length > 1 && v.startsWith("-") && !(spec.negative && parseF64(v) !== null))) {
      if (v !== undefined && !v.startsWith("--")) {
        throw new ClapError(`error: unexpected argument '${v}' found\n\n  tip: to pass '${v}' as a value, use '-- ${v}'\n\n${USAGE_LINES}\n${MORE}`);
      }
      throw new ClapError(`error: a value is required for '${label}' but none was supplied\n${possible}${MORE}`);
    }
    const bad = (why) => new ClapError(`error: invalid value '${v}' for '${label}'${why}\n${MORE}`);
    if (spec.values && !spec.values.includes(v)) {
      throw new ClapError(`error: invalid value '${v}' for '${label}'\n${possible}${MORE}`);
    }
    if (spec.parse === "f64" && parseF64(v) === null) throw bad(": invalid float literal");
    if (spec.parse === "u64" || spec.parse === "u16" || spec.parse === "cycles") {
      const [max, range] = {
        u64: [18446744073709551615n, "1..18446744073709551615"],
        u16: [65535n, "1..=65535"],
        cycles: [4294967295n, "1..=10000"],
      }[spec.parse];
      const n = parseUnsigned(v, max);
      if (n.error) throw bad(`: ${n.error}`);
      const top = spec.parse === "cycles" ? 10000n : max;
      if (n.value < 1n || n.value > top) throw bad(`: ${n.value} is not in ${range}`);
    }
    if (spec.parse === "event") {
      const why = bindings.event_error(v);
      if (why) throw bad(`: ${why}`);
    }
    if (values[t.name] && !spec.many) {
      throw new ClapError(`error: the argument '${label}' cannot be used multiple times\n\n${USAGE_LINES}\n${MORE}`);
    }
    (values[t.name] ??= []).push(v);
    order.push(t.name);
  }
  if (values.help) return { values, positionals, order };
  const conflicts = [
    ["quiet", "verbose"],
    ["interactive", "timeline"],
    ["core", "interactive"],
  ];
  for (const [a, b] of conflicts) {
    if (values[a] && values[b] && table[a] && table[b]) {
      const [first, second] = order.indexOf(a) < order.indexOf(b) ? [a, b] : [b, a];
      throw new ClapError(
        `error: the argument '${shown(first, table[first])}' cannot be used with '${shown(second, table[second])}'\n\n${USAGE_LINES}\n${MORE}`,
      );
    }
  }
  const requires = [
    ["keep-constant", "tolerance"],
    ["load-time", "timeline"],
    ["start", "timeline"],
    ["end", "timeline"],
    ["event", "timeline"],
  ];
  for (const [a, b] of requires) {
    if (values[a] && !values[b] && table[a]) {
      throw new ClapError(
        `error: the following required arguments were not provided:\n  ${shown(b, table[b])}\n\n${USAGE_LINES}\n${MORE}`,
      );
    }
  }
  return { values, positionals, order };
}

const one = (values, name) => (values[name] ? values[name][values[name].length - 1] : undefined);
const flag = (values, name) => Boolean(values[name]);

/** Rust's `{}` of an f64: the shortest digits that read back, never an
 * exponent; `inf`, `NaN`, `-0`. */
export function rustF64(x) {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const s = String(Math.abs(x));
  const sign = x < 0 ? "-" : "";
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return sign + s;
  const digits = m[1] + (m[2] ?? "");
  const exp = Number(m[3]);
  if (exp >= 0) return sign + digits.padEnd(exp + 1, "0");
  return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
}

/** The flags as the library's settings (JSON), as BakeArgs::settings maps
 * them, for output of `format`. */
function settingsOf(v, format) {
  const s = {
    format,
    rate: parseF64(one(v, "rate") ?? "30"),
    keep_constant: flag(v, "keep-constant"),
    cycles: Number(one(v, "cycles") ?? "1"),
    tangents: one(v, "tangents") ?? "as-written",
    clips: v.clip ?? [],
    interactive: flag(v, "interactive"),
    core: flag(v, "core"),
    wide: flag(v, "wide"),
    report: v.report !== undefined,
    timeline: flag(v, "timeline"),
    events: v.event ?? [],
  };
  if (v.mode) s.mode = one(v, "mode");
  if (v.interpolation) s.interpolation = one(v, "interpolation");
  if (v.tolerance) s.tolerance = parseF64(one(v, "tolerance"));
  if (v.compress) s.compress = one(v, "compress");
  if (v.visibility) s.visibility = one(v, "visibility");
  for (const [flagName, key] of [
    ["start", "start"],
    ["end", "end"],
    ["load-time", "load_time"],
  ]) {
    if (v[flagName]) s[key] = parseF64(one(v, flagName));
  }
  let json = JSON.stringify(s);
  // max_samples, a u64, written exactly.
  if (v["max-samples"]) json = `${json.slice(0, -1)},"max_samples":${BigInt(one(v, "max-samples"))}}`;
  return { settings: s, json };
}

/** Settings::check's first steps, for the values JSON cannot carry (an
 * infinite or NaN number): the same messages, in the same order. */
function checkNumbers(s) {
  if (!(s.rate > 0 && s.rate <= 100000)) return `--rate must be above 0 and at most 100000, not ${rustF64(s.rate)}`;
  for (const [name, key] of [
    ["--start", "start"],
    ["--end", "end"],
    ["--load-time", "load_time"],
  ]) {
    if (s[key] !== undefined && !Number.isFinite(s[key])) return `${name} must be a finite number of seconds`;
  }
  if (s.tolerance !== undefined && !(Number.isFinite(s.tolerance) && s.tolerance > 0)) {
    return `--tolerance must be a positive distance, not ${rustF64(s.tolerance)}`;
  }
  return null;
}

/** Checks the arguments together (BakeArgs::validate); throws Usage. */
function validate(v, given, bindings) {
  // What the command line does with threads and fsync the package does not.
  if (v.jobs) {
    throw new Usage(
      "-j is for the native command line: npx x3dbake bakes one input at a time (its WebAssembly has no threads); leave out -j, or install x3dbake with cargo",
    );
  }
  if (v.sync) {
    throw new Usage(
      "--sync is for the native command line: npx x3dbake renames each output into place whole but does not flush it to disk; leave out --sync, or install x3dbake with cargo",
    );
  }
  if (given.length === 0) throw new Usage("no input file: x3dbake INPUT... -o OUTPUT (see --help)");
  if (given.filter((g) => g === "-").length > 1) throw new Usage("standard input (-) can be read only once");
  const root = one(v, "root");
  if (root !== undefined && !isDir(root)) throw new Usage(`--root ${root} is not a folder`);
  const walked = given.some((g) => g !== "-" && isDir(g));
  const inputs = expand(given);
  const several = inputs.length > 1 || walked;
  const out = one(v, "output");
  const chosen = one(v, "format");
  let target;
  if (out === "-") target = { kind: "stdout" };
  else if (out !== undefined && isStream(out)) target = { kind: "stream", path: out };
  else if (out !== undefined && (isDir(out) || out.endsWith("/"))) target = { kind: "dir", path: out };
  else if (out !== undefined && several && formatOf(out) !== null) {
    throw new Usage(`${inputs.length} inputs cannot all be written to ${out}: give a folder (-o DIR/)`);
  } else if (out !== undefined && several) target = { kind: "dir", path: out };
  else if (out !== undefined) target = { kind: "file", path: out };
  else if (inputs.some((i) => i.path === "-")) {
    throw new Usage("standard input needs -o (a file, a folder, or - for standard output)");
  } else if (several) target = { kind: "dir", path: "." };
  else target = { kind: "file", path: `${stem(inputs[0].path)}.${chosen ?? "glb"}` };
  let format;
  if (target.kind === "file" && chosen) {
    const named = formatOf(target.path);
    if (named !== null && named !== chosen) {
      throw new Usage(`-o ${target.path} names a .${named} file but --format is ${chosen}: make them agree`);
    }
    format = chosen;
  } else if (chosen) format = chosen;
  else if (target.kind === "stdout") format = "csv";
  else if (target.kind === "dir" || target.kind === "stream") format = "glb";
  else {
    format = formatOf(target.path);
    if (format === null) {
      throw new Usage(`cannot tell the format of ${target.path}: use .gltf, .glb, .csv or --format`);
    }
  }
  const streamed = target.kind === "stdout" || target.kind === "stream";
  const embed = flag(v, "embed");
  if (format === "gltf" && streamed && !embed) {
    const where = target.kind === "stream" ? target.path : "standard output";
    throw new Usage(`a .gltf on ${where} needs --embed (or use --format glb): its .bin cannot go there`);
  }
  const { settings, json } = settingsOf(v, format);
  const problem = checkNumbers(settings) ?? bindings.check(json);
  if (problem) throw new Usage(problem);
  if (several && target.kind === "stdout" && format !== "csv") {
    throw new Usage("several glTF documents cannot share standard output: give a folder (-o DIR/)");
  }
  if (several && target.kind === "stdout" && flag(v, "wide")) {
    throw new Usage(
      "several wide tables cannot share standard output (their columns differ): give a folder (-o DIR/), or leave out --wide for one long table with a file column",
    );
  }
  if (embed && format !== "gltf") throw new Usage("--embed is for .gltf output (not .glb or CSV)");
  const depfile = one(v, "depfile") ?? null;
  if (depfile !== null && (target.kind === "stdout" || target.kind === "stream")) {
    throw new Usage("--depfile names the outputs' files: give -o FILE or -o DIR/");
  }
  if (depfile !== null && inputs.some((i) => i.path === "-")) {
    throw new Usage("--depfile names the inputs' files: standard input has none");
  }
  const reportPath = one(v, "report");
  if (reportPath !== undefined && several) {
    throw new Usage("--report is for one input (its page plots that input's tracks)");
  }
  let report = null;
  if (reportPath === "-" && target.kind === "stdout") {
    throw new Usage("--report - and -o - cannot both go to standard output: give one a file");
  } else if (reportPath === "-") report = { kind: "stdout" };
  else if (reportPath !== undefined) report = { kind: "file", path: reportPath };
  let outputs;
  if (target.kind === "dir") outputs = outputsIn(target.path, inputs, format);
  else if (target.kind === "file" || target.kind === "stream") outputs = inputs.map(() => target.path);
  else outputs = inputs.map(() => null);
  const writes = outputs.map((o) => {
    const w = [];
    if (o !== null) {
      w.push({ what: "the output", path: o });
      if (format === "gltf" && !embed) w.push({ what: "the glTF buffer", path: withExtension(o, "bin") });
    }
    if (report && report.kind === "file") w.push({ what: "--report", path: report.path });
    return w;
  });
  const reads = inputs.filter((i) => i.path !== "-").map((i) => i.path);
  const all = writes.flat();
  if (depfile !== null) all.push({ what: "--depfile", path: depfile });
  const clash = check(reads, all);
  if (clash) throw new Usage(clash);
  const temporaries = all
    .filter((w) => !isStream(w.path))
    .map((w) => ({ what: "a temporary file", path: tempPath(w.path) }));
  const clash2 = check(reads, temporaries);
  if (clash2) throw new Usage(clash2);
  return {
    inputs,
    outputs,
    writes,
    target,
    format,
    embed,
    json,
    settings,
    report,
    depfile,
    root: root ?? null,
    quiet: flag(v, "quiet"),
    verbose: flag(v, "verbose"),
    denyWarnings: flag(v, "deny-warnings"),
  };
}

/** Reads standard input or a file, capped at 4 GiB; throws the message. */
function readInput(path) {
  if (path === "-") {
    try {
      return readCapped(0);
    } catch (e) {
      throw new Error(`cannot read standard input: ${e.rust ?? ioMessage(e)}`);
    }
  }
  try {
    const meta = fs.statSync(path);
    if (!meta.isFile()) {
      const fd = fs.openSync(path, "r");
      try {
        return readCapped(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
    if (meta.size > MAX_FILE_BYTES) throw Object.assign(new Error(), { rust: "larger than 4 GiB" });
    return fs.readFileSync(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${e.rust ?? ioMessage(e)}`);
  }
}

/** A stream read whole, refused past 4 GiB. */
function readCapped(fd) {
  const chunks = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let n;
    try {
      n = fs.readSync(fd, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      if (e.code === "EOF") break;
      throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_FILE_BYTES) throw Object.assign(new Error(), { rust: "larger than 4 GiB" });
    chunks.push(chunk.subarray(0, n));
  }
  return Buffer.concat(chunks, total);
}

/** How the files a scene names are read: inside --root, or anywhere. */
function reader(bindings, root) {
  if (root === null) return diskFetch(bindings, null);
  try {
    return diskFetch(bindings, realRoot(root));
  } catch (e) {
    throw new Error(`cannot read the --root folder: ${e.message}`);
  }
}

/** Writes to standard output; a closed pipe is not an error. */
function writeStdout(bytes) {
  try {
    writeFd(1, bytes);
    return OK;
  } catch (e) {
    error(`cannot write to standard output: ${ioMessage(e)}`);
    return USAGE_OR_IO;
  }
}

const plural = (n) => (n === 1 ? "" : "s");

/** Bakes one input (batch::bake_one): its outcome and the messages to
 * print. */
function bakeOne(job, index, path, bindings, reads) {
  const fail = (message) => [USAGE_OR_IO, `error: ${message}\n`];
  const dest = job.outputs[index];
  let fetch;
  let bytes;
  try {
    fetch = reader(bindings, job.root);
    bytes = readInput(path);
  } catch (e) {
    return fail(e.message);
  }
  const name = path === "-" ? "<stdin>" : path;
  const done = guarded(bindings, (b) => b.convert(name, bytes, job.json, fetch, null));
  try {
    // The messages with -q or -v (where a step failed, what the scene said
    // before it).
    const said = () => messagesWith(done, job);
    if (done.failure === "usage" && job.settings.timeline) return fail(done.failure_message);
    if (done.failure === "usage") {
      // An unknown --clip: what the scene said first.
      const rest = done.failure_message.slice(`${name}: `.length);
      return [USAGE_OR_IO, `${said()}error: ${path}: ${rest}\n`];
    }
    if (done.failure && job.format === "csv") return [USAGE_OR_IO, `${said()}error: ${path}: ${done.failure_message}\n`];
    if (done.failure) return fail(`${path}: ${done.failure_message}`);
    const messages = said();
    if (!done.ok) return [INVALID, messages];
    const read = JSON.parse(done.read);
    const unread = () => {
      const writes = job.depfile === null ? job.writes[index] : [...job.writes[index], { what: "--depfile", path: job.depfile }];
      const clash = check(read, writes);
      return clash ? [USAGE_OR_IO, `error: ${path}: ${clash}\n`] : null;
    };
    const denied = () => {
      if (!job.denyWarnings || done.warnings === 0) return null;
      const n = done.warnings;
      return [INVALID, `${messages}error: ${path}: ${n} warning${plural(n)} with --deny-warnings: nothing written\n`];
    };
    const makeParent = () => {
      const p = dest === null ? null : parent(dest);
      if (p === null || job.target.kind !== "dir") return null;
      try {
        fs.mkdirSync(p, { recursive: true });
        return null;
      } catch (e) {
        return [USAGE_OR_IO, `${messages}error: cannot create ${p}: ${ioMessage(e)}\n`];
      }
    };
    let output = done.take_bytes();
    if (job.format === "csv") {
      const stop = denied() ?? unread() ?? makeParent();
      if (stop) return stop;
      if (dest === null) {
        if (job.inputs.length > 1) output = bindings.file_column(output, path, index === 0);
        const written = writeStdout(output);
        return [written, messages];
      }
      try {
        writeAllAtomic([{ path: dest, bytes: output }]);
      } catch (e) {
        return [USAGE_OR_IO, `${messages}error: ${e instanceof WriteError ? e.message : ioMessage(e)}\n`];
      }
      reads.push(...read);
      return [OK, messages];
    }
    const refused = unread();
    if (refused) return refused;
    let files;
    if (job.format === "gltf" && dest !== null && !job.embed) {
      const binPath = withExtension(dest, "bin");
      const split = besideLayout(output, fileName(binPath) ?? "");
      files = [{ path: dest, bytes: split.gltf }];
      if (split.bin) files.push({ path: binPath, bytes: split.bin });
    } else files = [{ path: dest, bytes: output }];
    const stop = denied();
    if (stop) return stop;
    let outcome = OK;
    if (dest === null) outcome = writeStdout(files[0].bytes);
    else {
      const p = makeParent();
      if (p) return p;
      try {
        writeAllAtomic(files);
      } catch (e) {
        return [USAGE_OR_IO, `${messages}error: ${e instanceof WriteError ? e.message : ioMessage(e)}\n`];
      }
      reads.push(...read);
    }
    if (job.report && done.report !== undefined && done.report !== null) {
      if (job.report.kind === "stdout") {
        return [Math.max(outcome, writeStdout(done.report)), messages];
      }
      try {
        writeAllAtomic([{ path: job.report.path, bytes: Buffer.from(done.report) }]);
      } catch (e) {
        return [USAGE_OR_IO, `${messages}error: ${e instanceof WriteError ? e.message : ioMessage(e)}\n`];
      }
    }
    return [outcome, messages];
  } finally {
    done.free();
  }
}

/** Bakes every input, one after another (batch::run); each input's
 * messages printed when it is done, a progress line on a terminal. */
function run(job, bindings) {
  const total = job.inputs.length;
  let worst = OK;
  const progress = total > 1 && tty.isatty(2);
  if (job.target.kind === "dir") {
    try {
      fs.mkdirSync(job.target.path, { recursive: true });
    } catch (e) {
      error(`cannot create ${job.target.path}: ${ioMessage(e)}`);
      return USAGE_OR_IO;
    }
  }
  // Per input, the files its bake read (for --depfile).
  const reads = job.inputs.map(() => null);
  job.inputs.forEach((input, i) => {
    const read = [];
    const [outcome, messages] = bakeOne(job, i, input.path, bindings, read);
    if (outcome === OK) reads[i] = read;
    worst = Math.max(worst, outcome);
    if (progress) writeFd(2, "\r\x1b[K");
    eprint(messages);
    if (progress && i + 1 < total) writeFd(2, `[${i + 1}/${total}] ${printable(input.path)}`);
  });
  if (progress) writeFd(2, "\r\x1b[K");
  if (job.depfile === null) return worst;
  try {
    writeAllAtomic([{ path: job.depfile, bytes: Buffer.from(depfileRules(job, reads)) }]);
    return worst;
  } catch (e) {
    error(e instanceof WriteError ? e.message : ioMessage(e));
    return Math.max(worst, USAGE_OR_IO);
  }
}

/** Makefile rules, one an output written: the output, then the input and
 * the files its bake read (`--depfile`; make's escapes). */
function depfileRules(job, reads) {
  const escape = (p) => p.replace(/[ #$]/g, (c) => (c === "$" ? "$$" : `\\${c}`));
  let text = "";
  job.inputs.forEach((input, i) => {
    const output = job.outputs[i];
    if (output === null || reads[i] === null) return;
    text += `${escape(output)}:`;
    const deps = [input.path];
    for (const r of reads[i]) if (!deps.includes(r)) deps.push(r);
    for (const d of deps) text += ` \\\n  ${escape(d)}`;
    text += "\n";
  });
  return text;
}

/** `x3dbake inspect FILE`. */
function inspect(args, bindings) {
  const { values: v, positionals } = parse(args, INSPECT, bindings);
  if (v.help) {
    writeStdout(args.includes("--help") ? help.inspectLong : help.inspectShort);
    return OK;
  }
  if (positionals.length === 0) {
    throw new ClapError(
      `error: the following required arguments were not provided:\n  <FILE>\n\nUsage: x3dbake inspect <FILE>\n${MORE}`,
    );
  }
  if (positionals.length > 1) {
    throw new ClapError(`error: unexpected argument '${positionals[1]}' found\n\nUsage: x3dbake inspect [OPTIONS] <FILE>\n${MORE}`);
  }
  const path = positionals[0];
  const json = flag(v, "json");
  const quiet = flag(v, "quiet");
  const verbose = flag(v, "verbose");
  const deny = flag(v, "deny-warnings");
  const settings = JSON.stringify({
    cycles: Number(one(v, "cycles") ?? "1"),
    tangents: one(v, "tangents") ?? "as-written",
  });
  let done;
  let problem = null;
  try {
    const fetch = (() => {
      const root = one(v, "root");
      return reader(bindings, root === undefined ? null : root);
    })();
    const bytes = readInput(path);
    const name = path === "-" ? "<stdin>" : path;
    done = guarded(bindings, (b) => b.inspect(name, path, bytes, settings, fetch, null, quiet, verbose));
    if (done.error) problem = done.error;
  } catch (e) {
    if (e.code === "X3DBAKE_PANIC") throw e;
    problem = e.message;
  }
  if (problem !== null) {
    done?.free();
    if (json) return Math.max(writeStdout(bindings.inspect_error_json(path, problem)), USAGE_OR_IO);
    error(problem);
    return USAGE_OR_IO;
  }
  try {
    if (json) {
      const written = writeStdout(done.json);
      if (done.errors === 0 && (done.warnings === 0 || !deny)) return written;
      return Math.max(written, INVALID);
    }
    eprint(done.messages);
    if (done.errors > 0) return INVALID;
    const text = `${done.text}warnings: ${done.warnings}\n`;
    const written = writeStdout(printable(text));
    if (deny && done.warnings > 0) {
      error(`${path}: ${done.warnings} warnings with --deny-warnings`);
      return Math.max(written, INVALID);
    }
    return written;
  } finally {
    done.free();
  }
}

/** What the package adds to the command line's help. */
const NPM_NOTE =
  "\nnpx x3dbake: the same command in WebAssembly, one input at a time (-j and --sync are the native\n" +
  "command's); `npx x3dbake serve [--port N]` serves the converter page on 127.0.0.1.\n";

/** The command line: exit code. */
export async function main(argv) {
  if (argv[0] === "serve") {
    const { serve } = await import("./serve.mjs");
    return serve(argv.slice(1));
  }
  const bindings = await load();
  try {
    return await dispatch(argv, bindings);
  } catch (e) {
    if (e instanceof ClapError) {
      let text = e.text;
      if (colours()) text = text.replace(/^error:/, "\x1b[1m\x1b[31merror:\x1b[0m");
      writeFd(2, text);
      return USAGE_OR_IO;
    }
    if (e instanceof Usage) {
      usage(e.message);
      return USAGE_OR_IO;
    }
    if (e && e.code === "X3DBAKE_PANIC") {
      eprint(`${e.message}\n`);
      return 101;
    }
    throw e;
  }
}

async function dispatch(argv, bindings) {
  const first = argv[0];
  if (first === "inspect") return inspect(argv.slice(1), bindings);
  if (first === "help") {
    writeStdout(argv[1] === "inspect" ? help.inspectLong : help.long + NPM_NOTE);
    return OK;
  }
  if (first === "completions" || first === "man") {
    throw new Usage(
      `${first} is for the native command line (cargo install x3dbake): the npm package does not carry clap's generators`,
    );
  }
  const { values: v, positionals } = parse(argv, BAKE, bindings);
  if (v.help) {
    const long = argv.includes("--help");
    writeStdout((long ? help.long : help.short) + NPM_NOTE);
    return OK;
  }
  if (v.version) {
    writeStdout(`x3dbake ${bindings.version()}\n`);
    return OK;
  }
  const job = validate(v, positionals, bindings);
  if (job.target.kind === "stdout" && job.format === "glb" && tty.isatty(1)) {
    usage("a .glb is binary: send standard output to a file or a pipe, or give -o FILE.glb");
    return USAGE_OR_IO;
  }
  return run(job, bindings);
}
