//! The cluster map: every node as a circle (controllers on top, brokers in
//! the middle, clients below) and every message in flight as a dot on the
//! line between its sender and receiver, placed by how much of its trip
//! simulated time has covered. A CSS transition moves each dot between two
//! renders, so playing animates the traffic.

use super::i18n::Lang;
use crate::sim::ids::NodeId;
use crate::sim::protocol::ApiKey;
use crate::sim::trace::Direction;
use crate::sim::view::{BrokerStatus, ClusterView, InFlightView};
use yew::prelude::*;

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 250.0;
const NODE_R: f64 = 20.0;

/// Where a node sits: rows by kind, spread evenly across the width.
pub fn position(view: &ClusterView, node: NodeId) -> Option<(f64, f64)> {
    let spread = |index: usize, count: usize| WIDTH * (index as f64 + 1.0) / (count as f64 + 1.0);
    match node {
        NodeId::Controller(c) => {
            let q = view.quorum.as_ref()?;
            let i = q.controllers.iter().position(|x| x.id == c)?;
            Some((spread(i, q.controllers.len()), 35.0))
        }
        NodeId::Broker(b) => {
            let i = view.brokers.iter().position(|x| x.id == b)?;
            Some((spread(i, view.brokers.len()), 125.0))
        }
        NodeId::Client(_) => {
            let clients: Vec<NodeId> = view.producers.iter().map(|p| p.id).chain(view.consumers.iter().map(|c| c.id)).collect();
            let i = clients.iter().position(|x| *x == node)?;
            Some((spread(i, clients.len()), 215.0))
        }
    }
}

/// How far along its link a message is, from 0 (just sent) to 1 (arriving).
pub fn progress(now_ms: u64, f: &InFlightView) -> f64 {
    let trip = f.arrives_at_ms.saturating_sub(f.sent_at_ms);
    if trip == 0 {
        return 1.0;
    }
    (now_ms.saturating_sub(f.sent_at_ms) as f64 / trip as f64).clamp(0.0, 1.0)
}

/// The colour class of a control-plane RPC: the quorum's own (Vote,
/// BeginQuorumEpoch, EndQuorumEpoch, its Fetch) or a broker's
/// (BrokerRegistration, BrokerHeartbeat, the metadata Fetch, AlterPartition).
pub fn control_class(rpc: &str) -> &'static str {
    if rpc.starts_with("Broker") || rpc.contains("__cluster_metadata") || rpc.starts_with("AlterPartition") {
        "broker-control"
    } else {
        "raft"
    }
}

fn kind_class(f: &InFlightView) -> &'static str {
    match (&f.rpc, f.api, f.follower_fetch) {
        (Some(rpc), _, _) => control_class(rpc),
        (None, ApiKey::Fetch, true) => "follower-fetch",
        (None, ApiKey::Produce, _) => "produce",
        (None, ApiKey::Fetch, false) => "fetch",
        (None, ApiKey::Metadata, _) => "metadata",
        (None, ApiKey::InitProducerId, _) => "init-producer-id",
    }
}

fn short_name(node: NodeId) -> String {
    match node {
        NodeId::Broker(b) => format!("B{b}"),
        NodeId::Controller(c) => format!("C{c}"),
        NodeId::Client(c) => format!("c{c}"),
    }
}

#[derive(Properties, PartialEq)]
pub struct ClusterMapProps {
    pub view: std::rc::Rc<ClusterView>,
}

#[function_component(ClusterMap)]
pub fn cluster_map(props: &ClusterMapProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let view = &props.view;
    let mut nodes: Vec<(NodeId, &'static str)> = Vec::new();
    if let Some(q) = &view.quorum {
        for c in &q.controllers {
            let class = if !c.alive {
                "stopped"
            } else if c.active {
                "active"
            } else {
                "running"
            };
            nodes.push((NodeId::Controller(c.id), class));
        }
    }
    for b in &view.brokers {
        let class = match b.status {
            BrokerStatus::Running => "running",
            BrokerStatus::Fenced => "fenced",
            BrokerStatus::ShuttingDown => "fenced",
            BrokerStatus::Stopped => "stopped",
        };
        nodes.push((NodeId::Broker(b.id), class));
    }
    for id in view.producers.iter().map(|p| p.id).chain(view.consumers.iter().map(|c| c.id)) {
        nodes.push((id, "client"));
    }
    let label = format!("{}: {} {}", t.cluster_map, view.in_flight.len(), t.messages_in_flight);
    html! {
        <figure class="cluster-map">
            <svg viewBox={format!("0 0 {WIDTH} {HEIGHT}")} role="img" aria-label={label.clone()}>
                <title>{ label }</title>
                // The links that carry something now, faintly, under the dots.
                { for view.in_flight.iter().filter_map(|f| {
                    let ((x1, y1), (x2, y2)) = (position(view, f.from)?, position(view, f.to)?);
                    Some(html! { <line class="link" x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} /> })
                }) }
                { for nodes.iter().filter_map(|(node, class)| {
                    let (x, y) = position(view, *node)?;
                    let isolated = super::quorum::is_cut_off(view, *node);
                    Some(html! {
                        <g class={classes!("map-node", *class, isolated.then_some("isolated"))} transform={format!("translate({x} {y})")}>
                            <title>{ node.to_string() }</title>
                            <circle r={NODE_R.to_string()} />
                            <text text-anchor="middle" dy="0.35em">{ short_name(*node) }</text>
                        </g>
                    })
                }) }
                { for view.in_flight.iter().filter_map(|f| {
                    let ((x1, y1), (x2, y2)) = (position(view, f.from)?, position(view, f.to)?);
                    let p = progress(view.time_ms, f);
                    let (x, y) = (x1 + (x2 - x1) * p, y1 + (y2 - y1) * p);
                    let response = f.direction == Direction::Response;
                    let key = format!("{}>{}#{}{}", f.from, f.to, f.request, if response { "r" } else { "q" });
                    let name = f.rpc.clone().unwrap_or_else(|| f.api.name().to_string());
                    Some(html! {
                        <g {key} class={classes!("dot", kind_class(f), response.then_some("response"))}
                            style={format!("transform: translate({x:.1}px, {y:.1}px)")}>
                            <title>{ format!("{name} {} → {}", f.from, f.to) }</title>
                            <circle r="7" />
                        </g>
                    })
                }) }
            </svg>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::session::Session;

    #[test]
    fn every_node_has_a_place_and_messages_move_from_sender_to_receiver() {
        let mut s = Session::default();
        for _ in 0..5 {
            s.step();
        }
        let view = s.view();
        assert!(!view.in_flight.is_empty(), "a booted cluster has traffic");
        for f in &view.in_flight {
            assert!(position(&view, f.from).is_some() && position(&view, f.to).is_some(), "{f:?}");
            let p = progress(view.time_ms, f);
            assert!((0.0..=1.0).contains(&p));
        }
        let f = InFlightView { sent_at_ms: 100, arrives_at_ms: 104, ..view.in_flight[0].clone() };
        assert_eq!(progress(100, &f), 0.0);
        assert_eq!(progress(102, &f), 0.5);
        assert_eq!(progress(110, &f), 1.0);
        // Rows: controllers above brokers above clients.
        let c = position(&view, NodeId::Controller(0)).unwrap();
        let b = position(&view, NodeId::Broker(0)).unwrap();
        let k = position(&view, NodeId::Client(0)).unwrap();
        assert!(c.1 < b.1 && b.1 < k.1);
    }
}

/// The purgatory's timer, as Kafka's hierarchical timing wheel: a row of
/// buckets per level (tickMs × wheelSize), the bucket "now" is in marked,
/// and the buckets holding delayed operations filled.
#[derive(Properties, PartialEq)]
pub struct TimingWheelProps {
    /// "Produce" or "Fetch": which purgatory's timer.
    pub name: AttrValue,
    pub wheel: crate::sim::purgatory::timing_wheel::WheelView,
}

#[function_component(TimingWheel)]
pub fn timing_wheel(props: &TimingWheelProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let w = &props.wheel;
    html! {
        <div class="timing-wheel" role="group" aria-label={format!("{} timing wheel", props.name)}>
            <p class="wheel-title">{ format!("{} · {}: {} {}", props.name, t.timing_wheel, w.task_count, t.timers_word) }</p>
            { for w.levels.iter().map(|level| {
                let now = (level.current_time_ms / level.tick_ms.max(1)).rem_euclid(i64::from(level.wheel_size.max(1))) as u32;
                html! {
                    <div class="wheel-level">
                        <span class="wheel-scale">{ format!("{} ms × {}", level.tick_ms, level.wheel_size) }</span>
                        <span class="wheel-buckets">
                        { for level.buckets.iter().map(|b| {
                            let busy = !b.task_ids.is_empty();
                            let title = match b.expiration_ms {
                                Some(e) if busy => format!("{} {}: {e} ms, {:?}", t.bucket_word, b.index, b.task_ids),
                                _ => format!("{} {}", t.bucket_word, b.index),
                            };
                            html! { <span class={classes!("bucket", busy.then_some("busy"), (b.index == now).then_some("now"))} {title}></span> }
                        }) }
                        </span>
                    </div>
                }
            }) }
        </div>
    }
}
