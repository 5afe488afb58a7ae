//! The library's layout: its top-level modules depend on each other one way
//! only (the README's module tree lists them in that order), so that a
//! stage can be read, tested and changed without the ones after it.

use crate::util;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The library's top-level module a source file belongs to (`None` for the
/// crate root and the binary's own files).
fn top_module(rel: &Path) -> Option<String> {
    let mut parts = rel.iter().map(|p| p.to_string_lossy().into_owned());
    let first = parts.next()?;
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    match name.as_str() {
        "lib" | "internal" | "main" | "cli" => None,
        _ => Some(name),
    }
}

/// The top-level modules a file's code names through `crate::`, comments
/// left out. The crate root's re-exports count as their modules.
fn dependencies(text: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let module = match name.as_str() {
                "Bake" => "bake".to_string(),
                "Limits" => "limits".to_string(),
                "Encoding" => "syntax".to_string(),
                _ => name,
            };
            if !module.is_empty() {
                deps.insert(module);
            }
        }
    }
    deps
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each module's dependencies on the other top-level modules.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = util::root().join("src");
    let mut paths = Vec::new();
    files(&src, &mut paths);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        let Some(module) = top_module(path.strip_prefix(&src).unwrap()) else {
            continue;
        };
        let mut deps = dependencies(&std::fs::read_to_string(&path).unwrap());
        deps.remove(&module);
        graph.entry(module).or_default().extend(deps);
    }
    graph
}

/// A cycle in the graph, as the modules along it, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first, with the path so far: a module met again on the path
    // closes a cycle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for dep in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(dep, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_imports_one_that_imports_it() {
    let graph = graph();
    assert!(graph.len() >= 10, "{graph:?}");
    assert_eq!(cycle(&graph), None, "{graph:#?}");
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let edge = |g: &mut BTreeMap<String, BTreeSet<String>>, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
    };
    edge(&mut g, "anim", "interp");
    edge(&mut g, "write", "anim");
    assert_eq!(cycle(&g), None);
    edge(&mut g, "anim", "write");
    assert_eq!(
        cycle(&g),
        Some(vec!["anim".into(), "write".into(), "anim".into()])
    );
    assert_eq!(
        dependencies("use crate::scene::Scene; // crate::write\nlet l = crate::Limits::default();"),
        BTreeSet::from(["scene".to_string(), "limits".to_string()])
    );
}

/// The README's module tree names every top-level module.
#[test]
fn the_readme_lists_every_module() {
    let readme = std::fs::read_to_string(util::root().join("README.md")).unwrap();
    for module in graph().keys() {
        assert!(
            readme.contains(&format!("src/{module}")),
            "README's module tree lacks src/{module}"
        );
    }
}

/// Inside each top-level module, its modules (`anim::clip`, `anim::walk`,
/// `anim::cascade`, …) and the ones each names: through `super::` (as far
/// up as it goes) or `crate::TOP::`, from any file under it.
fn inner_graph(top: &str) -> BTreeMap<String, BTreeSet<String>> {
    let dir = util::root().join("src").join(top);
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    let children: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            let name = name.strip_suffix(".rs").unwrap_or(&name).to_string();
            (name != "mod").then_some(name)
        })
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        let rel = path.strip_prefix(&dir).unwrap();
        // The file's module path under `top` (`mod.rs` is its folder's).
        let mut module: Vec<String> = rel
            .iter()
            .map(|p| {
                let p = p.to_string_lossy();
                p.strip_suffix(".rs").unwrap_or(&p).to_string()
            })
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let Some(own) = module.first().cloned() else {
            continue; // top's own mod.rs
        };
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            let mut named = Vec::new();
            let path = format!("crate::{}::", top.replace('/', "::"));
            for (at, _) in code.match_indices(&path) {
                named.push(code[at + path.len()..].to_string());
            }
            for (at, _) in code.match_indices("super::") {
                if code[..at].ends_with("super::") {
                    continue; // counted from the first `super::`
                }
                let mut rest = &code[at..];
                let mut up = 0;
                while let Some(r) = rest.strip_prefix("super::") {
                    rest = r;
                    up += 1;
                }
                // `super::` × up from the file's module: at `top` itself
                // when up is the module's depth.
                if up == module.len() {
                    named.push(rest.to_string());
                }
            }
            for rest in named {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name != own && children.contains(&name) {
                    graph.entry(own.clone()).or_default().insert(name);
                }
            }
        }
        graph.entry(own).or_default();
    }
    graph
}

#[test]
fn no_inner_module_imports_one_that_imports_it() {
    let anim = inner_graph("anim");
    assert!(anim.len() >= 10, "{anim:?}");
    // (Edges are seen: the route walker builds on clips and tracks.)
    assert!(
        anim["walk"].contains("clip") && anim["walk"].contains("track"),
        "{anim:?}"
    );
    // Nested modules too: the glTF writer's parts, the event cascade.
    let gltf = inner_graph("write/gltf");
    assert!(
        gltf.len() >= 10 && gltf["animations"].contains("targets"),
        "{gltf:?}"
    );
    for top in [
        "anim",
        "anim/cascade",
        "anim/keys",
        "interp",
        "load",
        "mesh",
        "scene",
        "script",
        "syntax",
        "syntax/json",
        "write",
        "write/gltf",
        "write/gltf/compact",
    ] {
        let graph = inner_graph(top);
        assert_eq!(cycle(&graph), None, "{top}: {graph:#?}");
    }
}
