//! Untrusted scenes: with --root a scene reads no file outside that folder
//! (links followed); a file a scene names that cannot be read or is not a
//! scene leaves the rest of the world baked, with a warning that quotes
//! none of its text.

use crate::util;
use std::path::Path;

const SECRET: &str = "TOPSECRET-42";

/// A folder `root/` holding the scene, and beside it `outside/` with a PNG
/// and a text file that the scene must not read under --root.
fn world(scene: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["root", "outside"] {
        std::fs::create_dir(d.join(sub)).unwrap();
    }
    let png = util::root().join("fixtures/scenes/checker.png");
    std::fs::copy(&png, d.join("outside/secret.png")).unwrap();
    std::fs::copy(&png, d.join("root/inside.png")).unwrap();
    std::fs::write(d.join("outside/secret.txt"), format!("{SECRET}\n")).unwrap();
    std::fs::write(d.join("root/notes.txt"), format!("{SECRET} <b>\n")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(d.join("outside/secret.png"), d.join("root/link.png")).unwrap();
    let scene = scene.replace("OUTSIDE", &d.join("outside").to_string_lossy());
    std::fs::write(d.join("root/scene.x3d"), scene).unwrap();
    dir
}

fn textured(url: &str) -> String {
    format!("<Shape><Appearance><ImageTexture url='\"{url}\"'/></Appearance><Box/></Shape>")
}

/// The images a .glb embeds.
fn images(glb: &Path) -> usize {
    let (json, _) = util::document_json(&std::fs::read(glb).unwrap());
    json["images"].as_array().map_or(0, Vec::len)
}

/// A texture through `..`, by an absolute path, or through a link that
/// leads out of --root is not read, and each says so; the one inside is.
/// Without --root all four are read, as documented.
#[test]
fn textures_outside_the_root_are_not_read() {
    let mut cases = vec![
        "../outside/secret.png".to_string(),
        "OUTSIDE/secret.png".to_string(),
    ];
    if cfg!(unix) {
        cases.push("link.png".into());
    }
    for url in &cases {
        let scene = format!(
            "<X3D><Scene>{}<Transform DEF='Kept'>{}</Transform></Scene></X3D>",
            textured(url),
            textured("inside.png")
        );
        let dir = world(&scene);
        let root = dir.path().join("root");
        let glb = root.join("scene.glb");
        let o = util::run_in(&root, &["scene.x3d", "--root", "."]);
        let err = util::stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{url}: {err}");
        assert!(err.contains("not read: outside --root"), "{url}: {err}");
        assert_eq!(
            images(&glb),
            1,
            "{url}: only the texture inside is embedded"
        );
        // --deny-warnings fails the run on it.
        let o = util::run_in(
            &root,
            &["scene.x3d", "--root", ".", "--deny-warnings", "-q"],
        );
        assert_eq!(o.status.code(), Some(1), "{url}");
        // Without --root the file is read (the README says so).
        let o = util::run_in(&root, &["scene.x3d", "-q"]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(images(&glb), 2, "{url}: read without --root");
    }
    // --root must be a folder.
    let dir = world("<X3D><Scene/></X3D>");
    let o = util::run_in(&dir.path().join("root"), &["scene.x3d", "--root", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(util::stderr(&o).contains("--root nope is not a folder"));
}

/// An Inline of a file that is not a scene (inside the root, or outside it
/// without --root) is left out with a warning that names the URL and the
/// reason and quotes none of the file; the rest of the world is baked,
/// exit 0. So is an Inline outside --root, a missing EXTERNPROTO, and a
/// URL with a scheme (never fetched).
#[test]
fn files_that_cannot_be_loaded_leave_the_rest_of_the_world() {
    let scene = "<X3D><Scene>\
        <Inline url='\"notes.txt\"'/>\
        <Inline url='\"../outside/secret.txt\"'/>\
        <Inline url='\"https://example.org/world.x3d\"'/>\
        <ExternProtoDeclare name='Gone' url='\"gone.x3d#Gone\"'>\
          <field accessType='inputOutput' name='size' type='SFFloat'/>\
        </ExternProtoDeclare>\
        <ProtoInstance name='Gone' DEF='G'/>\
        <Transform DEF='Kept'><Shape><Box/></Shape></Transform>\
        </Scene></X3D>";
    let dir = world(scene);
    let root = dir.path().join("root");
    for with_root in [false, true] {
        let mut args = vec!["scene.x3d", "-o", "out.gltf", "--embed", "-v"];
        if with_root {
            args.extend(["--root", "."]);
        }
        let o = util::run_in(&root, &args);
        let err = util::stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(
            !err.contains(SECRET),
            "a referenced file's text is quoted:\n{err}"
        );
        assert!(
            err.contains(
                "Inline: no file could be loaded: notes.txt (not loaded: 1 error, the first at"
            ),
            "{err}"
        );
        let outside = if with_root {
            "../outside/secret.txt (not read: outside --root"
        } else {
            "../outside/secret.txt (not loaded: 1 error"
        };
        assert!(err.contains(outside), "{err}");
        assert!(
            err.contains(
                "https://example.org/world.x3d (not fetched: x3dbake reads local files only)"
            ),
            "{err}"
        );
        assert!(err.contains("gone.x3d"), "{err}");
        let text = std::fs::read_to_string(root.join("out.gltf")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let names = util::node_names(&json);
        assert!(names.contains(&"Kept"), "{names:?}");
    }
    // inspect says the same, and its JSON quotes nothing either.
    let o = util::run_in(&root, &["inspect", "--json", "scene.x3d", "--root", "."]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!util::stdout(&o).contains(SECRET));
}
