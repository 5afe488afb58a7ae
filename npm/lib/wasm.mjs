// The library in WebAssembly (npm/src/lib.rs, bound by wasm-bindgen),
// loaded once; after a panic (a bug) the next call loads it anew, since an
// instance that trapped may be left in any state.

import fs from "node:fs";

let current = null;
let generation = 0;

/** The module's bindings, instantiated. */
export async function load() {
  if (current) return current;
  const url = new URL("../page/pkg/x3dbake_web.js", import.meta.url);
  if (generation > 0) url.search = `?instance=${generation}`;
  generation += 1;
  const bindings = await import(url.href);
  bindings.initSync({ module: fs.readFileSync(new URL("../page/pkg/x3dbake_web_bg.wasm", import.meta.url)) });
  current = bindings;
  return current;
}

/** Runs `f` with the bindings; a trap becomes an Error carrying the
 * panic's message (`x3dbake: panicked at …`). */
export function guarded(bindings, f) {
  try {
    return f(bindings);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      let message = null;
      try {
        message = bindings.last_panic() ?? null;
      } catch {
        // The instance is gone too far to say.
      }
      if (bindings === current) current = null;
      const err = new Error(message ?? `x3dbake: ${e.message}`);
      err.code = "X3DBAKE_PANIC";
      throw err;
    }
    throw e;
  }
}
