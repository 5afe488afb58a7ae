//! Destinations that move: a TimeSensor's fraction_changed that reaches a
//! follower's set_destination through interpolators and EaseInEaseOut
//! (one route into each, a chain). Instead of frames, the follower gets
//! the run itself as its destination (`followers::Feed`) when the run
//! begins, pauses or resumes, and the value where it stops when it ends.

use super::Player;
use super::followers::Feed;
use crate::anim::check::is_chain_node;
use crate::anim::{InterpOptions, NodeFn, node_function};
use crate::hash::{HashMap, HashSet};
use crate::scene::{Dir, NodeId, NodeType, Scene};
use std::rc::Rc;

/// A follower a clock feeds, and the chain's functions in order from the
/// clock.
type Fed = (NodeId, Rc<[NodeFn]>);

/// The chains from clocks into followers.
#[derive(Default)]
pub(super) struct Feeds {
    /// For each TimeSensor: the followers it feeds.
    by_sensor: HashMap<NodeId, Vec<Fed>>,
    /// The routes into the followers that the feeds stand for.
    pub routes: HashSet<usize>,
}

impl Feeds {
    /// The chains into `followers`: each route into a follower's
    /// set_destination whose sender is an interpolator or EaseInEaseOut
    /// reached, one route each, from a TimeSensor's fraction_changed.
    pub fn find(scene: &Scene, followers: &HashSet<NodeId>) -> Feeds {
        let mut into: HashMap<NodeId, Vec<usize>> = HashMap::default();
        for (ri, r) in scene.routes.iter().enumerate() {
            into.entry(r.to).or_default().push(ri);
        }
        let mut feeds = Feeds::default();
        for (ri, r) in scene.routes.iter().enumerate() {
            let input = scene.find_field(r.to, &r.to_field, Dir::In);
            if !followers.contains(&r.to) || input.is_none_or(|d| d.name != "set_destination") {
                continue;
            }
            let mut chain = Vec::new();
            let (mut node, mut field) = (r.from, r.from_field.as_str());
            let sensor = loop {
                if scene.node_type(node) == Some(NodeType::TimeSensor)
                    && field == "fraction_changed"
                {
                    break Some(node);
                }
                if !is_chain_node(scene, node) || chain.len() > 64 {
                    break None;
                }
                let Some((f, _)) = node_function(scene, node, InterpOptions::default()) else {
                    break None;
                };
                chain.push(f);
                match into.get(&node).map(Vec::as_slice) {
                    Some(&[one]) => {
                        let before = &scene.routes[one];
                        (node, field) = (before.from, before.from_field.as_str());
                    }
                    _ => break None,
                }
            };
            if let Some(sensor) = sensor {
                chain.reverse();
                feeds
                    .by_sensor
                    .entry(sensor)
                    .or_default()
                    .push((r.to, chain.into()));
                feeds.routes.insert(ri);
            }
        }
        feeds
    }
}

impl Player<'_> {
    /// A sensor's run begins, pauses or resumes at `t`: the followers it
    /// feeds head for it from then.
    pub(super) fn refeed(&mut self, t: f64, sensor: NodeId) {
        let Some(list) = self.feeds.by_sensor.get(&sensor).cloned() else {
            return;
        };
        let Some(run) = self
            .sensors
            .get(&sensor)
            .and_then(|s| s.part(f64::NEG_INFINITY))
        else {
            return;
        };
        for (follower, chain) in list {
            self.follower_feed(t, follower, Feed::new(run.clone(), chain));
        }
    }

    /// A sensor's run ends at `t`: the followers it feeds head for where
    /// it stopped.
    pub(super) fn unfeed(&mut self, t: f64, sensor: NodeId) {
        let followers: Vec<NodeId> = self
            .feeds
            .by_sensor
            .get(&sensor)
            .map(|l| l.iter().map(|f| f.0).collect())
            .unwrap_or_default();
        for id in followers {
            self.follower_freeze(t, id);
        }
    }
}
