// Types of x3dbake's JavaScript API (lib/index.mjs).

/** The command line's options, in camelCase (x3dbake::Settings). */
export interface BakeOptions {
  /** The output: "glb" (default), "gltf" (its buffer embedded) or "csv". */
  format?: "glb" | "gltf" | "csv";
  /** Exact keys where glTF holds the curve (default), or every track sampled. */
  mode?: "exact" | "sample";
  /** How keys are joined (default linear; step only with mode sample). */
  interpolation?: "linear" | "step" | "cubic";
  /** Samples a second, for mode sample and CSV rows (30). */
  rate?: number;
  /** The most samples one track may take (50 000 000). */
  maxSamples?: number;
  /** The bound on every track (scene units; radians for rotations). */
  tolerance?: number;
  /** With tolerance: keep tracks that never change their target. */
  keepConstant?: boolean;
  /** Cycles of each clock in a clip (1). */
  cycles?: number;
  /** How spline tangents are read. */
  tangents?: "as-written" | "c1";
  /** Only these clips (by name). */
  clips?: string[] | string;
  /** A compact file: true or "meshopt", or "quantize". */
  compress?: boolean | "meshopt" | "quantize";
  /** The routes' behaviour as a KHR_interactivity graph. */
  interactive?: boolean;
  /** Only what a core glTF loader reads. */
  core?: boolean;
  /** How nodes are shown and hidden. */
  visibility?: "scale" | "extension";
  /** CSV: one row a time, one column a component. */
  wide?: boolean;
  /** Also the bake report (an HTML page), for glTF output. */
  report?: boolean;
  /** The whole world in world time. */
  timeline?: boolean;
  /** With timeline: the first and last time, seconds. */
  start?: number;
  end?: number;
  /** With timeline: the absolute time the world loads. */
  loadTime?: number;
  /** With timeline: a person's events, "TIME:NODE.FIELD=VALUE". */
  events?: string[] | string;
  /** A path input: read only files whose real path is inside this folder. */
  root?: string;
  /** A path input: read the files a scene names yourself. */
  fetch?: (from: string, url: string) => { name: string; bytes: Uint8Array };
  /** The messages without warnings (-q) or with their source lines (-v). */
  quiet?: boolean;
  verbose?: boolean;
  /** Any warning fails the bake (ok false, no bytes), as --deny-warnings. */
  denyWarnings?: boolean;
}

/** A scene given in memory: its path among the files, and every file. */
export interface FilesInput {
  name: string;
  files: Record<string, Uint8Array> | Map<string, Uint8Array>;
}

/** An error or warning with its place in the files. */
export interface Diagnostic {
  severity: "error" | "warning";
  message: string;
  file?: string;
  line?: number;
  column?: number;
}

/** A clip as `x3dbake inspect --json` describes it. */
export interface Clip {
  name: string;
  clock: string;
  duration: number;
  loop: boolean;
  tracks: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

/** What a bake gives. */
export interface BakeResult {
  /** The output was made: no error (and no warning with denyWarnings). */
  ok: boolean;
  /** The .glb, .gltf or .csv bytes (empty when not ok). */
  bytes: Uint8Array;
  /** The errors and warnings (the first kept of each kind). */
  diagnostics: Diagnostic[];
  /** The messages as the command line prints them. */
  messages: string;
  /** How many errors and warnings there were. */
  errors: number;
  warnings: number;
  /** The clips and their tracks. */
  clips: Clip[];
  /** What `inspect --json` says of the scene. */
  inspect: Record<string, unknown>;
  /** The bake report (an HTML page), when asked for and made. */
  report: string | null;
  /** The files read besides the input (Inlines, EXTERNPROTOs, textures). */
  read: string[];
}

/** Bakes a scene: a path, or files in memory. Throws a UsageError for
 * options that cannot go together (the command line's usage errors). */
export function bake(input: string | FilesInput, options?: BakeOptions): Promise<BakeResult>;

/** What `x3dbake inspect FILE --json` prints, as an object. */
export function inspect(
  input: string | FilesInput,
  options?: Pick<BakeOptions, "cycles" | "tangents" | "root" | "fetch">,
): Promise<Record<string, unknown>>;

/** The version of x3dbake the package runs. */
export function version(): Promise<string>;

/** The library's settings (JSON text) for these options. */
export function settingsJson(options?: BakeOptions): string;

/** Options that cannot be used. */
export class UsageError extends Error {
  code: "X3DBAKE_USAGE";
}
