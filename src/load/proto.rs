//! PROTO expansion: each instance gets its own copy of its prototype's
//! body, with the instance's field values put in through IS connections,
//! the body's ROUTEs copied, and ROUTEs to and from the instance's fields
//! moved onto the body nodes they are connected to.

use crate::diag::Diagnostics;
use crate::hash::HashMap;
use crate::limits::Limits;
use crate::scene::value::Data;
use crate::scene::{Dir, NodeClass, NodeId, Route, Scene, SetField};

pub use crate::limits::MAX_PROTO_NESTING as MAX_NESTING;
/// The body nodes one instance's interface field is connected to.
type Connections = HashMap<(NodeId, String), Vec<(NodeId, String)>>;

/// Expands every prototype instance of the scene, after checking that the
/// expansion stays within [`MAX_NESTING`] and the `limits` on expanded
/// nodes and routes: a few lines of nested prototypes can ask for
/// billions of nodes, and that is refused before anything is made.
pub fn expand(scene: &mut Scene, limits: &Limits, diags: &mut Diagnostics) {
    let mut queue: Vec<NodeId> = (0..scene.nodes.len() as u32)
        .map(NodeId)
        .filter(|&id| {
            scene.node(id).in_proto.is_none()
                && matches!(scene.node(id).class, NodeClass::Proto(_))
                && !scene.expansions.contains_key(&id)
        })
        .collect();
    // Every prototype's template nodes, in creation order (copies made
    // below are not templates, so this holds throughout).
    let mut templates: HashMap<usize, Vec<NodeId>> = HashMap::default();
    for (i, n) in scene.nodes.iter().enumerate() {
        if let Some(p) = n.in_proto {
            templates.entry(p).or_default().push(NodeId(i as u32));
        }
    }
    if !within_limits(scene, &queue, &templates, limits, diags) {
        return;
    }
    let mut connections = Connections::default();
    let mut warned_extern = Vec::new();
    // Unnamed instances are told apart by their order among instances of
    // the same prototype: `Spinner_1`, `Spinner_2`.
    let mut ordinal: HashMap<usize, usize> = HashMap::default();
    let mut labels: HashMap<NodeId, String> = HashMap::default();
    // (In document order: the queue is taken from its end.)
    for &inst in &queue {
        if let (None, NodeClass::Proto(p)) = (&scene.node(inst).def, scene.node(inst).class) {
            let n = ordinal.entry(p).or_insert(0);
            *n += 1;
            labels.insert(inst, format!("{}_{n}", scene.protos[p].name));
        }
    }
    while let Some(inst) = queue.pop() {
        let NodeClass::Proto(p) = scene.node(inst).class else {
            continue;
        };
        if scene.protos[p].extern_url.is_some() {
            if !warned_extern.contains(&p) {
                warned_extern.push(p);
                let proto = &scene.protos[p];
                diags.warning(
                    format!(
                        "EXTERNPROTO `{}` could not be read: its instances are not baked",
                        proto.name
                    ),
                    Some(proto.span),
                );
            }
            continue;
        }
        let label = match (&scene.node(inst).def, labels.get(&inst)) {
            (Some(d), _) => d.clone(),
            (None, Some(l)) => l.clone(),
            (None, None) => {
                let n = ordinal.entry(p).or_insert(0);
                *n += 1;
                format!("{}_{n}", scene.protos[p].name)
            }
        };
        let template = templates.get(&p).map_or(&[][..], Vec::as_slice);
        let nested = instantiate(scene, inst, p, template, &label, &mut connections);
        // Unnamed instances inside this one count from 1 within it.
        let mut inner: HashMap<usize, usize> = HashMap::default();
        for &n in &nested {
            if scene.node(n).def.is_none() {
                let NodeClass::Proto(q) = scene.node(n).class else {
                    continue;
                };
                let k = inner.entry(q).or_insert(0);
                *k += 1;
                labels.insert(n, format!("{label}.{}_{k}", scene.protos[q].name));
            }
        }
        // (Taken from the end: the first of them is expanded first.)
        queue.extend(nested.into_iter().rev());
    }
    reroute(scene, &connections, limits.expanded_routes, diags);
}

/// What one instance of a prototype expands to: the nodes and routes it
/// creates, and how deep instances nest in it (1 when its body holds no
/// instance).
#[derive(Clone, Copy)]
struct Size {
    nodes: usize,
    routes: usize,
    depth: usize,
}

/// Checks, before expanding anything, that the instances `roots` stay
/// within [`MAX_NESTING`] and the `limits` on expanded nodes and routes;
/// reports the first that does not.
fn within_limits(
    scene: &Scene,
    roots: &[NodeId],
    templates: &HashMap<usize, Vec<NodeId>>,
    limits: &Limits,
    diags: &mut Diagnostics,
) -> bool {
    let sizes = sizes(scene, templates);
    // Nodes, then routes, created so far.
    let mut created = [0usize; 2];
    for &inst in roots {
        let NodeClass::Proto(p) = scene.node(inst).class else {
            continue;
        };
        let size = sizes[p];
        let name = &scene.protos[p].name;
        if size.depth > MAX_NESTING {
            diags.error(
                format!("prototype instances in `{name}` nest deeper than {MAX_NESTING}"),
                Some(scene.node(inst).span),
            );
            return false;
        }
        let counts = [
            (size.nodes, limits.expanded_nodes, "nodes"),
            (size.routes, limits.expanded_routes, "routes"),
        ];
        for (total, (n, max, what)) in created.iter_mut().zip(counts) {
            *total = total.saturating_add(n);
            if *total > max {
                let which = if n > max {
                    format!("one instance of `{name}` alone")
                } else {
                    format!("this instance of `{name}` ({n} {what}) with those before it")
                };
                diags.error(
                    format!("expanding prototypes would create more than {max} {what}: {which}"),
                    Some(scene.node(inst).span),
                );
                return false;
            }
        }
    }
    true
}

/// The [`Size`] of every prototype, by a depth-first walk over the
/// instances in prototype bodies that keeps its own stack (bodies may
/// nest thousands deep in a hostile file). An EXTERNPROTO that could not
/// be read expands to nothing. A prototype met again while its own size
/// is being found counts as nesting without end: the readers never let a
/// body name its own prototype, and this keeps such a graph from looping.
fn sizes(scene: &Scene, templates: &HashMap<usize, Vec<NodeId>>) -> Vec<Size> {
    const ENDLESS: Size = Size {
        nodes: usize::MAX,
        routes: usize::MAX,
        depth: usize::MAX,
    };
    let nested = |p: usize| -> Vec<usize> {
        let body = templates.get(&p).map_or(&[][..], Vec::as_slice);
        body.iter()
            .filter_map(|&n| match scene.node(n).class {
                NodeClass::Proto(q) if scene.protos[q].extern_url.is_none() => Some(q),
                _ => None,
            })
            .collect()
    };
    let mut done: Vec<Option<Size>> = vec![None; scene.protos.len()];
    let mut open = vec![false; scene.protos.len()];
    for start in 0..scene.protos.len() {
        // Each entry: a prototype, its nested instances' prototypes, and
        // how many of those are already counted in.
        let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        if done[start].is_none() {
            open[start] = true;
            stack.push((start, nested(start), 0));
        }
        while let Some((p, inner, next)) = stack.last_mut() {
            if let Some(&q) = inner.get(*next) {
                *next += 1;
                if done[q].is_none() && !open[q] {
                    open[q] = true;
                    let inner_q = nested(q);
                    stack.push((q, inner_q, 0));
                }
                continue;
            }
            let p = *p;
            let own = templates.get(&p).map_or(0, Vec::len);
            let size = inner.iter().fold(
                Size {
                    nodes: own,
                    routes: scene.protos[p].routes.len(),
                    depth: 1,
                },
                |acc, &q| {
                    // Not done: still open, a loop.
                    let s = done[q].unwrap_or(ENDLESS);
                    Size {
                        nodes: acc.nodes.saturating_add(s.nodes),
                        routes: acc.routes.saturating_add(s.routes),
                        depth: acc.depth.max(s.depth.saturating_add(1)),
                    }
                },
            );
            done[p] = Some(size);
            open[p] = false;
            stack.pop();
        }
    }
    done.into_iter().map(|s| s.unwrap_or(ENDLESS)).collect()
}

/// Copies the body of prototype `p` (its `template` nodes) for instance
/// `inst`. Returns the instances inside the copy.
fn instantiate(
    scene: &mut Scene,
    inst: NodeId,
    p: usize,
    template: &[NodeId],
    label: &str,
    connections: &mut Connections,
) -> Vec<NodeId> {
    let mut map: HashMap<NodeId, NodeId> = HashMap::default();
    for &old in template {
        let new = NodeId(scene.nodes.len() as u32);
        let n = scene.node(old);
        let copy = crate::scene::Node {
            type_name: n.type_name.clone(),
            class: n.class,
            def: n.def.as_ref().map(|d| format!("{label}.{d}")),
            span: n.span,
            user_fields: n.user_fields.clone(),
            values: n.values.clone(),
            raw_fields: n.raw_fields.clone(),
            in_proto: None,
        };
        scene.nodes.push(copy);
        map.insert(old, new);
    }
    let remap = |id: NodeId, map: &HashMap<NodeId, NodeId>| *map.get(&id).unwrap_or(&id);
    for &new in map.values() {
        for f in scene.nodes[new.0 as usize].values.iter_mut() {
            if let Data::Nodes(list) = &mut f.value.data {
                list.iter_mut().for_each(|n| *n = remap(*n, &map));
            }
        }
    }
    // IS: the instance's values (or the interface defaults) into the copy.
    let proto = &scene.protos[p];
    let given = &scene.node(inst).values;
    let mut sets = Vec::new();
    for c in &proto.connections {
        let target = remap(c.node, &map);
        connections
            .entry((inst, c.proto_field.clone()))
            .or_default()
            .push((target, c.node_field.clone()));
        let Some(def) = proto.interface.get(&c.proto_field) else {
            continue;
        };
        if !def.access.writable() && def.access != crate::scene::Access::InitializeOnly {
            continue;
        }
        let value = given
            .get(&c.proto_field)
            .map(|f| (f.value.clone(), f.span))
            .unwrap_or((def.default.clone(), c.span));
        sets.push((target, c.node_field.clone(), value));
    }
    // A body node the instance's interface reaches, with no DEF of its
    // own, is named after the instance: `Knee.rotation` in CSV and
    // inspect rather than `<Transform>.rotation`.
    for c in &scene.protos[p].connections {
        let target = remap(c.node, &map);
        let node = &mut scene.nodes[target.0 as usize];
        // (A nested instance keeps its own numbering.)
        if node.def.is_none() && !matches!(node.class, NodeClass::Proto(_)) {
            node.def = Some(label.to_string());
        }
    }
    for (target, field, (value, span)) in sets {
        // The body node's field as the catalogue names it.
        let name = scene
            .find_field(target, &field, Dir::In)
            .map(|f| f.name.clone())
            .unwrap_or(field);
        scene.nodes[target.0 as usize]
            .values
            .set(SetField { name, value, span });
    }
    let routes: Vec<Route> = scene.protos[p]
        .routes
        .iter()
        .map(|r| Route {
            from: remap(r.from, &map),
            to: remap(r.to, &map),
            ..r.clone()
        })
        .collect();
    scene.routes.extend(routes);
    let roots: Vec<NodeId> = scene.protos[p]
        .body
        .iter()
        .map(|&b| remap(b, &map))
        .collect();
    scene.expansions.insert(inst, roots);
    // The nested instances in the body's order (the map's is the hasher's,
    // which differs from run to run): they are expanded in this order, so
    // that their nodes are numbered, and their routes listed, the same way
    // in every run.
    let mut nested: Vec<NodeId> = map
        .values()
        .copied()
        .filter(|&n| matches!(scene.node(n).class, NodeClass::Proto(_)))
        .collect();
    nested.sort_unstable();
    nested
}

/// Moves routes that name an instance's field onto the body nodes that
/// field is connected to (repeatedly, for instances inside instances), up
/// to `max_routes` moved routes: past it, an error at the route
/// that passes it, and the routes not yet moved stay as they are.
fn reroute(
    scene: &mut Scene,
    connections: &Connections,
    max_routes: usize,
    diags: &mut Diagnostics,
) {
    // No field is connected (a scene without instances): no route moves,
    // and none is looked at (a copy of both its fields' names each).
    if connections.is_empty() {
        return;
    }
    let mut made = 0usize;
    for _ in 0..MAX_NESTING {
        let mut changed = false;
        let mut out = Vec::with_capacity(scene.routes.len());
        let mut routes = std::mem::take(&mut scene.routes).into_iter();
        while let Some(r) = routes.next() {
            // The destination moves first; the source on a later round.
            let to = connections
                .get(&(r.to, r.to_field.clone()))
                .map(|c| (c, Dir::In));
            let from = || {
                let c = connections.get(&(r.from, r.from_field.clone()));
                c.map(|c| (c, Dir::Out))
            };
            let Some((ends, dir)) = to.or_else(from) else {
                out.push(r);
                continue;
            };
            changed = true;
            made = made.saturating_add(ends.len());
            if made > max_routes {
                let (node, field) = match dir {
                    Dir::In => (r.to, &r.to_field),
                    Dir::Out => (r.from, &r.from_field),
                };
                diags.error(
                    format!(
                        "moving ROUTEs onto the nodes that prototype fields are connected to \
                         would create more than {max_routes} routes: stopped at this \
                         one, whose `{}.{field}` is connected to {} nodes",
                        scene.display_name(node),
                        ends.len()
                    ),
                    Some(r.span),
                );
                out.push(r);
                out.extend(routes);
                scene.routes = out;
                return;
            }
            for (node, field) in ends {
                let name = scene
                    .find_field(*node, field, dir)
                    .map_or(field.clone(), |f| f.name.clone());
                let mut moved = r.clone();
                match dir {
                    Dir::In => (moved.to, moved.to_field) = (*node, name),
                    Dir::Out => (moved.from, moved.from_field) = (*node, name),
                }
                out.push(moved);
            }
        }
        scene.routes = out;
        if !changed {
            return;
        }
    }
}
