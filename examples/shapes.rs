//! Lists the Shapes of X3D files through the library: for each file, how
//! many Shape nodes it has (prototype bodies counted once an instance, Inline
//! files once a place they are inlined) and their geometry node types.
//!
//!     cargo run --example shapes -- fixtures/scenes/*.x3d

use std::collections::BTreeMap;
use x3dbake::{Bake, FileFetch, Limits, NodeClass, NodeId};

fn main() -> anyhow::Result<()> {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path)?;
        let bake = Bake::load(
            &path,
            bytes,
            None,
            Some(&mut FileFetch::default()),
            Limits::default(),
        );
        let scene = &bake.scene;
        let mut geometry: BTreeMap<String, usize> = BTreeMap::new();
        let mut shapes = 0;
        for i in 0..scene.nodes.len() {
            let id = NodeId(i as u32);
            let node = scene.node(id);
            // Prototype templates are not in the scene; their copies are.
            if node.in_proto.is_some() || !matches!(node.class, NodeClass::Known(_)) {
                continue;
            }
            if node.type_name != "Shape" {
                continue;
            }
            shapes += 1;
            let ty = scene
                .child(id, "geometry")
                .map_or("(none)".to_string(), |g| scene.node(g).type_name.clone());
            *geometry.entry(ty).or_default() += 1;
        }
        let list: Vec<String> = geometry.iter().map(|(t, n)| format!("{t}={n}")).collect();
        println!("{path}\t{shapes}\t{}", list.join(" "));
    }
    Ok(())
}
