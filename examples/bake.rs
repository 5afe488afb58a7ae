//! Bakes an X3D file to a .glb through the library, printing each clip's
//! tracks and their values halfway through the clip.
//!
//!     cargo run --example bake -- fixtures/scenes/bouncing_box.x3d out.glb

use x3dbake::{Bake, FileFetch, Limits, gltf};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        anyhow::bail!("usage: bake INPUT.x3d OUTPUT.glb");
    };
    let bytes = std::fs::read(input)?;
    // Read (Inline and EXTERNPROTO files through FileFetch), check, and
    // build one clip per clock.
    let mut bake = Bake::load(
        input,
        bytes,
        None,
        Some(&mut FileFetch::default()),
        Limits::default(),
    );
    bake.animate(Default::default());
    for d in bake.diags.list() {
        eprint!("{}", d.render(&bake.sources));
    }
    anyhow::ensure!(!bake.diags.has_errors(), "{input} has errors");

    let mut value = Vec::new();
    for clip in &bake.clips {
        let half = clip.duration() / 2.0;
        println!("clip {} ({} s)", clip.name, clip.duration());
        for track in &clip.tracks {
            clip.eval(track, half, &mut value);
            let target = bake.scene.display_name(track.target);
            println!("  {target}.{} at {half} s: {value:?}", track.field);
        }
    }

    let mut doc = bake.gltf(&gltf::Options::default(), Some(&mut FileFetch::default()))?;
    anyhow::ensure!(!bake.diags.has_errors(), "{input}: the glTF cannot be made");
    // (A large buffer moves to a file as it is made: write_glb streams it.)
    let mut out = std::io::BufWriter::new(std::fs::File::create(output)?);
    doc.write_glb(&mut out)?;
    std::io::Write::flush(&mut out)?;
    println!("wrote {output}");
    Ok(())
}
