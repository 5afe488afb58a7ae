//! Shared bodies of the fuzz targets (also run by the regression test over
//! the saved findings in fuzz/regressions/).

use x3dbake::convert::{Format, Joining, KeyMode, Settings, convert_within};
use x3dbake::internal::write::{csv, gltf};
use x3dbake::{Bake, ClipOptions, Encoding, Fetch, FieldType, Limits, NodeClass, UserEvent, World};

/// The XML reader: any bytes, read as XML whatever they look like.
pub fn read_xml(data: &[u8]) {
    read(data, "fuzz.x3d", Some(Encoding::Xml));
}

/// The ClassicVRML / VRML97 reader.
pub fn read_vrml(data: &[u8]) {
    read(data, "fuzz.x3dv", Some(Encoding::Vrml));
}

/// The JSON reader.
pub fn read_json(data: &[u8]) {
    read(data, "fuzz.x3dj", Some(Encoding::Json));
}

/// Gzip: the bytes after a fixed gzip header (so that the fuzzer mutates the
/// deflate stream, not the magic), then whichever reader the text asks for.
pub fn read_gzip(data: &[u8]) {
    let mut bytes = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    bytes.extend_from_slice(data);
    read(&bytes, "fuzz.x3d.gz", None);
}

/// Reads bytes as a file of the given name, in the given encoding (or the
/// one its first characters and name tell), rendering every diagnostic.
/// Gzip data is left to `read_gzip` when an encoding is given, so that each
/// reader's target explores that reader only.
fn read(data: &[u8], name: &str, encoding: Option<Encoding>) {
    if encoding.is_some() && x3dbake::internal::load::is_gzip(data) {
        return;
    }
    let bake = Bake::load(name, data.to_vec(), encoding, None, Limits::small());
    for d in bake.diags.list() {
        let _ = d.render(&bake.sources);
    }
}

/// Every URL names a file holding the input's own bytes, so that linking
/// (Inline and EXTERNPROTO files, loops, nesting, the read limits, IMPORT
/// and EXPORT, merging) is fuzzed too. Files are named by their URL: a URL
/// met again inside its own file is a loop.
struct Itself<'a>(&'a [u8]);

impl Fetch for Itself<'_> {
    fn fetch(&mut self, _from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
        Ok((url.to_string(), self.0.to_vec()))
    }
}

/// Reads bytes (linking every URL to themselves) and, when they read
/// without errors, bakes everything.
pub fn bake(data: &[u8]) {
    bake_with(data, &mut Itself(data), false);
}

/// What a scene names, served as a second file: every URL gives the bytes
/// after the input's first `\n--\n` (or its second half), except one with
/// `missing` in it, which cannot be read, and one with `outside` in it,
/// refused as a file outside --root is. Linking, the warnings of files left
/// out, the rendering of a referenced file's diagnostics (never its lines)
/// and textures of any bytes are fuzzed.
struct Referenced<'a>(&'a [u8]);

impl Fetch for Referenced<'_> {
    fn fetch(&mut self, _from: &str, url: &str) -> std::io::Result<(String, Vec<u8>)> {
        use std::io::{Error, ErrorKind};
        if url.contains("missing") {
            return Err(Error::from(ErrorKind::NotFound));
        }
        if url.contains("outside") {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                "not read: outside --root",
            ));
        }
        Ok((format!("referenced/{url}"), self.0.to_vec()))
    }
}

/// A scene and the file it references: see [`Referenced`].
pub fn referenced(data: &[u8]) {
    let cut = data
        .windows(4)
        .position(|w| w == b"\n--\n")
        .map_or((data.len() / 2, data.len() / 2), |at| (at, at + 4));
    let (scene, other) = (&data[..cut.0], &data[cut.1..]);
    bake_with(scene, &mut Referenced(other), true);
}

/// Loads `data` through `fetch`, renders its diagnostics and, when it reads
/// without errors, bakes everything (textures through `fetch` too with
/// `images`).
fn bake_with(data: &[u8], fetch: &mut dyn Fetch, images: bool) {
    let mut bake = Bake::load(
        "fuzz",
        data.to_vec(),
        None,
        Some(&mut *fetch),
        Limits::small(),
    );
    for d in bake.diags.list() {
        let _ = d.render(&bake.sources);
    }
    bake.animate(ClipOptions {
        cycles: 2,
        ..Default::default()
    });
    // As the CLI: routes with errors are not baked.
    if bake.diags.has_errors() {
        return;
    }
    // Bounded work: a long clip runs the same code as a short one at many
    // times the cost (the tolerance fit of the sampled tracks takes most of
    // this target's time), so skip clips longer than a minute.
    if bake
        .clips
        .iter()
        .any(|c| c.duration().is_nan() || c.duration() > 60.0)
    {
        return;
    }
    for mode in [gltf::Mode::Exact, gltf::Mode::Sample] {
        let o = gltf::Options {
            keys: gltf::KeyOptions {
                mode,
                rate: 5.0,
                tolerance: Some(0.01),
                ..Default::default()
            },
            // The sampled documents go through --compress as well.
            compress: (mode == gltf::Mode::Sample).then_some(gltf::Compression::Meshopt),
            ..Default::default()
        };
        let made = if images {
            bake.gltf(&o, Some(&mut *fetch))
        } else {
            bake.gltf(&o, None)
        };
        let Ok(mut doc) = made else {
            return;
        };
        // As the CLI: a document with errors is not written.
        if bake.diags.has_errors() {
            return;
        }
        let _ = doc.write_glb(std::io::sink());
    }
    let c = csv::CsvOptions {
        rate: 5.0,
        wide: true,
        timeline: Some((0.0, 10.0)),
    };
    let _ = bake.csv(&c);
}

/// The limits of the targets below: [`Limits::small`], with at most 2 000
/// samples a track (a minute at the `--rate` of 30 they use at most), so
/// that a long clock fails fast instead of sampling for seconds, and
/// Scripts stopped after 20 000 interrupt checks in all (ten calls run to
/// the small limit: about a second with AddressSanitizer).
fn limits() -> Limits {
    Limits {
        samples_per_track: 2_000,
        // About 2·10⁶ instructions a call and 10⁷ a bake: a Script that
        // loops is stopped in milliseconds (with 20 000 checks a bake, 2·10⁸
        // instructions, one input took seconds under AddressSanitizer and
        // the script target ran at 2 to 8 inputs a second).
        script_call_checks: 200,
        script_checks: 1_000,
        ..Limits::small()
    }
}

/// Splits an input into a scene and the bytes that steer its run: the
/// bytes after the last `\n--\n`, else the scene's own last 32 bytes (so
/// that a plain scene is a seed too).
fn scene_and_steering(data: &[u8]) -> (&[u8], &[u8]) {
    match data.windows(4).rposition(|w| w == b"\n--\n") {
        Some(at) => (&data[..at], &data[at + 4..]),
        None => (data, &data[data.len().saturating_sub(32)..]),
    }
}

/// The names of the fields a node has: its type's, its prototype's
/// interface's, and its own (a Script's), in their declared order.
fn field_names(bake: &Bake, node: x3dbake::NodeId) -> Vec<(String, FieldType)> {
    let n = bake.scene.node(node);
    let declared: Vec<(String, FieldType)> = match n.class {
        NodeClass::Known(def) => def.fields.iter().map(|f| (f.name.clone(), f.ty)).collect(),
        NodeClass::Proto(p) => bake.scene.protos[p]
            .interface
            .iter()
            .map(|f| (f.name.clone(), f.ty))
            .collect(),
        NodeClass::Unknown => Vec::new(),
    };
    let own = n.user_fields.iter().map(|f| (f.name.clone(), f.ty));
    declared.into_iter().chain(own).collect()
}

/// A value for an event of type `ty`, as `--event` writes it, made from a
/// byte: mostly well-formed (a bool, numbers of the type's width, a
/// string, NULL), sometimes not, so that the value reader's refusals are
/// reached too.
fn event_value(ty: FieldType, b: u8) -> String {
    let number = |i: usize| {
        let x = f64::from(b.wrapping_add(i as u8 * 37)) / 16.0 - 4.0;
        if ty.scalar() == x3dbake::internal::scene::value::Scalar::Int {
            format!("{}", x as i32)
        } else {
            format!("{x}")
        }
    };
    match b % 16 {
        0 => "true".into(),
        1 => "false".into(),
        2 => "NULL".into(),
        3 => "\"text\"".into(),
        4 => "1e308 -1e308".into(),
        5 => String::new(),
        _ => {
            let width = ty.components().max(1) * if ty.is_mf() { usize::from(b % 3) } else { 1 };
            let numbers: Vec<String> = (0..width).map(number).collect();
            if ty.is_mf() {
                format!("[{}]", numbers.join(" "))
            } else {
                numbers.join(" ")
            }
        }
    }
}

/// World time (`--timeline`): the scene, then its world played from
/// events made of the steering bytes (see [`scene_and_steering`]): its
/// first bytes choose the load time, the end and the rate, every four
/// after them an event (a time, a DEF name of the scene, one of that
/// node's fields, a value). Then the CSV table wide and long, and the
/// timeline clip in glTF and GLB, as `--timeline` writes them.
pub fn timeline(data: &[u8]) {
    let (text, steering) = scene_and_steering(data);
    let mut bake = Bake::load("fuzz", text.to_vec(), None, None, limits());
    for d in bake.diags.list() {
        let _ = d.render(&bake.sources);
    }
    if bake.diags.has_errors() {
        return;
    }
    let byte = |i: usize| steering.get(i).copied().unwrap_or(0);
    let load = match byte(0) % 4 {
        0 => x3dbake::DEFAULT_LOAD_TIME,
        1 => 0.0,
        2 => f64::from(byte(1)),
        _ => -1e9,
    };
    let start = (byte(2) & 1 == 1).then(|| f64::from(byte(2) / 2) / 16.0);
    // (Without an end the cascade plays an hour: only sometimes.)
    let end = (byte(3) % 8 != 0).then(|| f64::from(byte(3)) / 8.0 + start.unwrap_or(0.0));
    let rate = [5.0, 30.0, 0.5, 60.0][usize::from(byte(4) % 4)];
    let mut names: Vec<(&String, x3dbake::NodeId)> =
        bake.scene.defs.iter().map(|(k, &v)| (k, v)).collect();
    names.sort();
    let mut events = Vec::new();
    if !names.is_empty() {
        for e in steering.get(5..).unwrap_or_default().chunks(4).take(16) {
            let (name, node) = names[usize::from(e[0]) % names.len()];
            let fields = field_names(&bake, node);
            let Some((field, ty)) = (!fields.is_empty())
                .then(|| &fields[usize::from(e.get(1).copied().unwrap_or(0)) % fields.len()])
            else {
                continue;
            };
            events.push(UserEvent {
                time: f64::from(e.get(2).copied().unwrap_or(0)) / 16.0,
                node: name.clone(),
                field: field.clone(),
                value: event_value(*ty, e.get(3).copied().unwrap_or(0)),
            });
        }
    }
    let world = World {
        load,
        events,
        end,
        rate,
    };
    // As the command line: an event naming what the scene lacks is refused
    // before the run.
    if world.check(&bake.scene).is_err() {
        return;
    }
    bake.animate_in(ClipOptions::default(), Some(&world));
    for d in bake.diags.list() {
        let _ = d.render(&bake.sources);
    }
    if bake.diags.has_errors() {
        return;
    }
    let Ok(Some(span)) = bake.ready(&[], Some((start, end))) else {
        return;
    };
    // Bounded work, as in `bake_with`: a long span runs the same code.
    if (span.1 - span.0).is_nan() || span.1 - span.0 > 60.0 {
        return;
    }
    for wide in [true, false] {
        let c = csv::CsvOptions {
            rate,
            wide,
            timeline: Some(span),
        };
        let _ = bake.csv(&c);
    }
    bake.play_timeline(span);
    let o = gltf::Options {
        keys: gltf::KeyOptions {
            rate,
            tolerance: Some(0.01),
            ..Default::default()
        },
        ..Default::default()
    };
    let Ok(mut doc) = bake.gltf(&o, None) else {
        return;
    };
    if !bake.diags.has_errors() {
        let _ = doc.write_glb(std::io::sink());
    }
}

/// The scene the `script` target runs its input in: a Script with a field
/// of every type the binding passes, in each access (`a` inputOutput, `o` outputOnly, `i`
/// inputOnly, `c` initializeOnly, each followed by the type's name:
/// `aSFVec3f`), nodes it holds (`node`, `nodes`) and may write
/// (directOutput), a clock sending it events, and its outputs routed to
/// nodes of the scene.
fn script_scene(code: &str) -> String {
    let mut fields = String::new();
    // (Not the types the binding does not pass: a field of one stops the
    // Script from loading.)
    let passed = FieldType::ALL.iter().filter(|ty| {
        !matches!(
            ty,
            FieldType::MFImage | FieldType::SFQuaternion | FieldType::MFQuaternion
        )
    });
    for ty in passed {
        let t = ty.name();
        for (prefix, access) in [
            ("a", "inputOutput"),
            ("o", "outputOnly"),
            ("i", "inputOnly"),
            ("c", "initializeOnly"),
        ] {
            if matches!(*ty, FieldType::SFNode | FieldType::MFNode) && prefix == "c" {
                continue;
            }
            fields.push_str(&format!(
                "<field name='{prefix}{t}' type='{t}' accessType='{access}'/>\n"
            ));
        }
    }
    // (Inside CDATA only `]]>` ends the text.)
    let code = code.replace("]]>", "]] >");
    format!(
        r#"<X3D profile='Immersive' version='4.0'><Scene>
<Transform DEF='T'><Shape><Appearance><Material DEF='M'/></Appearance><Box/></Shape></Transform>
<Group DEF='G'/>
<Switch DEF='W'><Group/><Group/></Switch>
<TimeSensor DEF='C' cycleInterval='1' loop='true'/>
<PositionInterpolator DEF='P' key='0 1' keyValue='0 0 0 1 2 3'/>
<Script DEF='S' directOutput='true' mustEvaluate='true'>
{fields}<field name='node' type='SFNode' accessType='initializeOnly'><Transform USE='T'/></field>
<field name='nodes' type='MFNode' accessType='initializeOnly'><Group USE='G'/><Material USE='M'/><TimeSensor USE='C'/></field>
<![CDATA[ecmascript:
{code}
]]></Script>
<ROUTE fromNode='C' fromField='fraction_changed' toNode='S' toField='iSFFloat'/>
<ROUTE fromNode='C' fromField='time' toNode='S' toField='iSFTime'/>
<ROUTE fromNode='C' fromField='cycleTime' toNode='S' toField='aSFTime'/>
<ROUTE fromNode='P' fromField='value_changed' toNode='S' toField='iSFVec3f'/>
<ROUTE fromNode='C' fromField='fraction_changed' toNode='P' toField='set_fraction'/>
<ROUTE fromNode='S' fromField='oSFVec3f' toNode='T' toField='set_translation'/>
<ROUTE fromNode='S' fromField='aSFRotation' toNode='T' toField='rotation'/>
<ROUTE fromNode='S' fromField='oSFVec3f' toNode='T' toField='scale'/>
<ROUTE fromNode='S' fromField='oSFColor' toNode='M' toField='diffuseColor'/>
<ROUTE fromNode='S' fromField='oSFFloat' toNode='M' toField='transparency'/>
<ROUTE fromNode='S' fromField='oSFInt32' toNode='W' toField='whichChoice'/>
<ROUTE fromNode='S' fromField='oMFNode' toNode='G' toField='addChildren'/>
<ROUTE fromNode='S' fromField='aMFNode' toNode='G' toField='removeChildren'/>
<ROUTE fromNode='S' fromField='oSFBool' toNode='C' toField='enabled'/>
<ROUTE fromNode='S' fromField='oSFTime' toNode='C' toField='startTime'/>
<ROUTE fromNode='S' fromField='oSFFloat' toNode='P' toField='set_fraction'/>
</Scene></X3D>"#
    )
}

/// Script bodies against the ECMAScript binding: the input (as UTF-8,
/// lossily) is the program of a Script in [`script_scene`], run in world
/// time for two seconds at 10 frames a second, its outputs written to
/// glTF, or (inputs of an odd length: one run of the Scripts is most of
/// the time an input takes) in clip mode, written as a CSV table.
pub fn script(data: &[u8]) {
    let text = script_scene(&String::from_utf8_lossy(data)).into_bytes();
    let settings = if data.len().is_multiple_of(2) {
        Settings {
            rate: 10.0,
            ..Settings::default()
        }
        .with_timeline(None, Some(2.0))
    } else {
        Settings {
            format: Format::Csv,
            rate: 10.0,
            ..Settings::default()
        }
    };
    let _ = convert_within("fuzz.x3d", text, None, &settings, limits());
}

/// Every output form, as the command line writes it (through
/// [`convert_within`]): the first two bytes choose the settings, the rest
/// is the scene. glTF or GLB with `--compress` (quantize or meshopt),
/// `--interactive` or `--core`, exact or sampled keys, linear, cubic or
/// step, a tolerance, `--visibility`, the report; or CSV, wide or long.
/// Settings the command line refuses together are refused here too (and
/// the run stops there).
pub fn outputs(data: &[u8]) {
    let [a, b, scene @ ..] = data else {
        return;
    };
    let sample = a & 16 != 0;
    let csv = b & 128 != 0;
    let settings = if csv {
        Settings {
            format: Format::Csv,
            wide: a & 1 != 0,
            rate: [5.0, 30.0][usize::from(a >> 1 & 1)],
            cycles: 1 + u32::from(a >> 2 & 1),
            ..Settings::default()
        }
    } else {
        let interactive = a & 4 != 0;
        Settings {
            format: if b & 1 != 0 {
                Format::Gltf
            } else {
                Format::Glb
            },
            compress: match a & 3 {
                1 => Some(gltf::Compression::Quantize),
                2 => Some(gltf::Compression::Meshopt),
                _ => None,
            },
            interactive,
            core: a & 8 != 0 && !interactive,
            mode: sample.then_some(KeyMode::Sample),
            interpolation: match a >> 5 & 3 {
                1 => Some(Joining::Cubic),
                2 if sample => Some(Joining::Step),
                3 => Some(Joining::Linear),
                _ => None,
            },
            report: a & 128 != 0,
            rate: [5.0, 30.0][usize::from(b >> 1 & 1)],
            // (1e-10 is finer than f32 holds: held at what it holds.)
            tolerance: [None, Some(0.01), Some(1e-3), Some(1e-10)][usize::from(b >> 2 & 3)],
            keep_constant: b & 16 != 0,
            visibility: match b >> 5 & 3 {
                1 if !interactive => Some(gltf::Visibility::Scale),
                2 if a & 8 == 0 || interactive => Some(gltf::Visibility::Extension),
                _ => None,
            },
            ..Settings::default()
        }
    };
    let Ok(out) = convert_within("fuzz", scene.to_vec(), None, &settings, limits()) else {
        return;
    };
    if let Some(report) = out.report {
        std::hint::black_box(report);
    }
}

/// `inspect --json` (and the plain report): the scene read, animated, its
/// glTF made with its bytes counted, as `x3dbake inspect` does, and its
/// document written out.
pub fn inspect(data: &[u8]) {
    let mut bake = Bake::load("fuzz", data.to_vec(), None, None, limits());
    bake.animate(ClipOptions::default());
    if !bake.diags.has_errors() {
        let _ = bake.count_gltf(None);
    }
    let doc = bake.inspect_json("fuzz");
    std::hint::black_box(doc.to_string());
    if !bake.diags.has_errors() {
        std::hint::black_box(bake.report());
    }
}
