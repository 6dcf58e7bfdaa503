//! The faults a learner can cause from the stage, as simulation commands,
//! and which nodes a network cut has cut off.

use crate::sim::ids::NodeId;
use crate::sim::simulation::{Command, NodeSet};
use crate::sim::view::ClusterView;

/// The command that cuts `node` off from every other node of the view.
pub fn isolate(view: &ClusterView, node: NodeId) -> Command {
    let mut rest = NodeSet::default();
    for b in &view.brokers {
        rest.brokers.push(b.id);
    }
    for c in view.quorum.iter().flat_map(|q| q.controllers.iter()) {
        rest.controllers.push(c.id);
    }
    for id in view.producers.iter().map(|p| p.id).chain(view.consumers.iter().map(|c| c.id)) {
        if let NodeId::Client(c) = id {
            rest.clients.push(c);
        }
    }
    let mut one = NodeSet::default();
    match node {
        NodeId::Broker(b) => {
            rest.brokers.retain(|x| *x != b);
            one.brokers.push(b);
        }
        NodeId::Controller(c) => {
            rest.controllers.retain(|x| *x != c);
            one.controllers.push(c);
        }
        NodeId::Client(c) => {
            rest.clients.retain(|x| *x != c);
            one.clients.push(c);
        }
    }
    Command::Partition { a: one, b: rest }
}

/// Whether a cut in place has `node` on its smaller side: the side that is
/// cut off from the rest (the first side when both are the same size).
pub fn is_cut_off(view: &ClusterView, node: NodeId) -> bool {
    view.network_cuts
        .iter()
        .any(|(a, b)| (a.contains(&node) && a.len() <= b.len()) || (b.contains(&node) && b.len() < a.len()))
}

/// Whether a message between these two nodes would cross a cut in place.
pub fn link_is_cut(view: &ClusterView, x: NodeId, y: NodeId) -> bool {
    view.network_cuts.iter().any(|(a, b)| (a.contains(&x) && b.contains(&y)) || (a.contains(&y) && b.contains(&x)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::session::Session;

    #[test]
    fn isolating_a_broker_cuts_it_from_everyone_else_and_only_it() {
        let mut s = Session::default();
        let view = s.view();
        s.command_now(isolate(&view, NodeId::Broker(1))).unwrap();
        let view = s.view();
        assert!(is_cut_off(&view, NodeId::Broker(1)));
        assert!(!is_cut_off(&view, NodeId::Broker(0)));
        assert!(link_is_cut(&view, NodeId::Broker(1), NodeId::Controller(0)));
        assert!(link_is_cut(&view, NodeId::Client(0), NodeId::Broker(1)));
        assert!(!link_is_cut(&view, NodeId::Broker(0), NodeId::Broker(2)));
    }
}
