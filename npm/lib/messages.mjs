// Messages as the command line prints them (src/cli/messages.rs): control
// characters from a file escaped, colours on a terminal as anstream
// decides them, usage errors as clap gives them.

import fs from "node:fs";
import tty from "node:tty";

/** Text safe to show on a terminal: every control character but newline
 * and tab written as an escape (`\x1b`, `\u{9b}`). */
export function printable(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => {
    const n = c.codePointAt(0);
    return n < 0x80 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u{${n.toString(16)}}`;
  });
}

const env = (name) => process.env[name];

/** Whether standard error gets colours: anstream's choice (NO_COLOR,
 * CLICOLOR_FORCE, CLICOLOR, a terminal whose TERM is not dumb, CI). */
export function colours() {
  const clicolor = env("CLICOLOR");
  if (env("NO_COLOR") && env("NO_COLOR") !== "") return false;
  if (env("CLICOLOR_FORCE") && env("CLICOLOR_FORCE") !== "0") return true;
  if (clicolor !== undefined && clicolor === "0") return false;
  const term = env("TERM");
  const supports = term !== undefined && term !== "dumb";
  return tty.isatty(2) && (supports || (clicolor !== undefined && clicolor !== "0") || env("CI") !== undefined);
}

const bold = "\x1b[1m";
const reset = "\x1b[0m";
const style = { error: `${bold}\x1b[31m`, warning: `${bold}\x1b[33m`, note: bold, blue: `${bold}\x1b[34m` };

/** Diagnostics text with rustc's colours: the severity of each headline,
 * the gutter, the carets under a span, notes. */
export function painted(text) {
  let out = "";
  let carets = style.error;
  for (const line of text.split(/(?<=\n)/)) {
    let found = null;
    for (const word of ["error", "warning", "note"]) {
      let at = -1;
      if (line.startsWith(`${word}: `)) at = 0;
      else {
        const i = line.indexOf(`: ${word}: `);
        if (i >= 0) at = i + 2;
      }
      if (at >= 0) {
        found = { at, word };
        break;
      }
    }
    if (found) {
      const s = style[found.word];
      if (found.word !== "note") carets = s;
      const { at, word } = found;
      out += `${line.slice(0, at)}${s}${word}${reset}${line.slice(at + word.length)}`;
      continue;
    }
    // A source line or the lines around it: `12 | text`, `   |   ^^^`,
    // `   = note: …`.
    let bar = -1;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c !== " " && !(c >= "0" && c <= "9")) {
        if (c === "|" || c === "=") bar = i;
        break;
      }
    }
    if (bar < 0) {
      out += line;
      continue;
    }
    const mark = line[bar];
    out += `${style.blue}${line.slice(0, bar + 1)}${reset}`;
    const rest = line.slice(bar + 1);
    const body = rest.trimEnd();
    if (mark === "|" && body !== "" && /^\^+$/.test(body.trimStart())) out += `${carets}${rest}${reset}`;
    else if (rest.startsWith(" note:")) out += ` ${bold}note${reset}:${rest.slice(" note:".length)}`;
    else out += rest;
  }
  return out;
}

/** Writes to a file descriptor whole (a pipe that is full is waited for;
 * a closed one is not an error). False when it failed otherwise. */
export function writeFd(fd, bytes) {
  const buf = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  let at = 0;
  while (at < buf.length) {
    try {
      at += fs.writeSync(fd, buf, at, Math.min(buf.length - at, 1 << 24));
    } catch (e) {
      if (e.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        continue;
      }
      if (e.code === "EPIPE") return true;
      throw e;
    }
  }
  return true;
}

/** Writes text to standard error, made printable and painted. */
export function eprint(text) {
  if (text === "") return;
  const safe = printable(text);
  try {
    writeFd(2, colours() ? painted(safe) : safe);
  } catch {
    // Nowhere left to say it.
  }
}

/** An error of the run: `error: …`. */
export function error(message) {
  eprint(`error: ${message}\n`);
}

/** The usage lines of clap's errors. */
export const USAGE = "Usage: x3dbake [OPTIONS] [INPUT]...\n       x3dbake <COMMAND>";

/** A usage error as clap gives one: `error: …`, the usage line, a pointer
 * to --help (exit 2). `usage` null: no usage line (clap's value errors). */
export function usage(message, usageLines = USAGE) {
  let text = `error: ${printable(message)}\n\n`;
  if (usageLines) text += `${usageLines}\n\n`;
  text += "For more information, try '--help'.\n";
  if (colours()) {
    text = text
      .replace(/^error:/, `${style.error}error:${reset}`)
      .replace(/^Usage:/m, `${bold}\x1b[4mUsage:${reset}`);
  }
  try {
    writeFd(2, text);
  } catch {
    // Nowhere left to say it.
  }
}
