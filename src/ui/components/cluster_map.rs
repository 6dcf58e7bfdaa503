use super::app::FollowContext;
use super::stage::Shown;
use crate::sim::ids::NodeId;
use crate::sim::protocol::ApiKey;
use crate::sim::raft::state::RaftRole;
use crate::sim::trace::Direction;
use crate::sim::view::{BrokerStatus, ClusterView, InFlightView};
use crate::ui::countdown::{self, Countdown};
use crate::ui::faults;
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{Lang, Texts};
use crate::ui::layout::{self, Layout, NodeKind, NodePlace};
use crate::ui::state::{Action, Followed, Selection};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ClusterMapProps {
    pub view: Rc<ClusterView>,
    pub shown: Option<Shown>,
    pub layout: Layout,
    /// The simulated time to draw: messages sit where that time puts them.
    pub now_ms: f64,
}

/// The cluster picture: controllers on top, brokers in the middle, clients
/// below; every message in flight a dot on the line between its sender and
/// receiver, placed by how much of its trip simulated time has covered (a
/// CSS transition glides it between two drawings). A node is a button:
/// picking it shows its insides under the map.
#[function_component(ClusterMap)]
pub fn cluster_map(props: &ClusterMapProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let follow = use_context::<FollowContext>();
    let dispatch = use_dispatch();
    let view = &props.view;
    let layout = props.layout;
    let (width, height) = layout::map_size(layout);
    let place = |node| layout::node_place(view, node, layout);
    let select = |selection: Selection| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::Select(selection)))
    };
    let keys = |selection: Selection| {
        let dispatch = dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                dispatch.dispatch(Action::Select(selection));
            }
        })
    };
    let label = format!("{}: {} {}", t.cluster_map, view.in_flight.len(), t.messages_in_flight);

    // The links a message travels now, under everything else; a cut link is
    // drawn dashed with scissors, because nothing crosses it.
    let links: Vec<(NodeId, NodeId)> = {
        let mut l: Vec<(NodeId, NodeId)> = view.in_flight.iter().map(|f| ordered(f.from, f.to)).collect();
        l.sort();
        l.dedup();
        l
    };
    let cut_links: Vec<(NodeId, NodeId)> = cut_links(view);

    html! {
        <figure class={classes!("cluster-map", matches!(layout, Layout::Narrow).then_some("narrow"))}>
            <svg viewBox={format!("0 0 {width} {height}")} role="group" aria-label={label.clone()}>
                <title>{ label }</title>
                <g class="links" aria-hidden="true">
                    { for links.iter().filter_map(|(a, b)| {
                        let ((x1, y1), (x2, y2)) = layout::link_ends(&place(*a)?, &place(*b)?);
                        Some(html! { <line class="link" x1={f(x1)} y1={f(y1)} x2={f(x2)} y2={f(y2)} /> })
                    }) }
                    { for cut_links.iter().filter_map(|(a, b)| {
                        let ((x1, y1), (x2, y2)) = layout::link_ends(&place(*a)?, &place(*b)?);
                        let (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
                        Some(html! {
                            <g class="cut">
                                <line class="link cut" x1={f(x1)} y1={f(y1)} x2={f(x2)} y2={f(y2)} />
                                <text x={f(mx)} y={f(my)} text-anchor="middle" dy="0.35em">{ "✂" }</text>
                            </g>
                        })
                    }) }
                </g>
                { for view.quorum.iter().flat_map(|q| q.controllers.iter()).filter_map(|c| {
                    let p = place(NodeId::Controller(c.id))?;
                    let selected = props.shown == Some(Shown::Controller(c.id));
                    let (class, role) = controller_role(t, c.alive, c.active, c.raft.as_ref().map(|r| &r.role), c.raft.as_ref().map_or(0, |r| r.epoch));
                    let isolated = faults::is_cut_off(view, NodeId::Controller(c.id));
                    let (cx, cy) = p.rect.center();
                    let r = p.rect.w / 2.0;
                    Some(html! {
                        <g class={classes!("map-node", "controller", class, selected.then_some("selected"), isolated.then_some("isolated"))}
                            role="button" tabindex="0" aria-pressed={selected.to_string()} aria-label={format!("Controller {}", c.id)}
                            onclick={select(Selection::Controller(c.id))} onkeydown={keys(Selection::Controller(c.id))}>
                            <title>{ format!("{} {} · {role}", t.controller, c.id) }</title>
                            <circle class="halo" cx={f(cx)} cy={f(cy)} r={f(r + 5.0)} />
                            <circle class="body" cx={f(cx)} cy={f(cy)} r={f(r)} />
                            <text class="node-name" x={f(cx)} y={f(cy)} text-anchor="middle" dy="0.35em">{ format!("C{}", c.id) }</text>
                            <text class="node-role" x={f(cx)} y={f(cy + r + 11.0)} text-anchor="middle">{ role }</text>
                            { countdown::controller(view, c.id, props.now_ms).map(|cd| controller_countdown(lang, &cd, cx, cy, r, layout)).unwrap_or_default() }
                        </g>
                    })
                }) }
                { for view.brokers.iter().filter_map(|b| {
                    let p = place(NodeId::Broker(b.id))?;
                    let selected = props.shown == Some(Shown::Broker(b.id));
                    let isolated = faults::is_cut_off(view, NodeId::Broker(b.id));
                    Some(html! {
                        <g class={classes!("map-node", "broker", status_class(b.status), selected.then_some("selected"), isolated.then_some("isolated"))}
                            role="button" tabindex="0" aria-pressed={selected.to_string()} aria-label={format!("Broker {}", b.id)}
                            onclick={select(Selection::Broker(b.id))} onkeydown={keys(Selection::Broker(b.id))}>
                            { broker_card(t, view, b.id, b.status, isolated, &p, layout) }
                            { countdown::broker_session(view, b.id, props.now_ms).map(|cd| broker_countdown(lang, &cd, &p)).unwrap_or_default() }
                        </g>
                    })
                }) }
                { for layout::clients(view).into_iter().filter_map(|id| {
                    let p = place(id)?;
                    Some(html! {
                        <>
                            { client_pill(t, view, id, &p, layout) }
                            { countdown::producer(view, id, props.now_ms).map(|cd| client_countdown(lang, &cd, &p)).unwrap_or_default() }
                        </>
                    })
                }) }
                <g class="messages">
                    { for view.in_flight.iter().filter_map(|m| {
                        let (from, to) = (place(m.from)?, place(m.to)?);
                        Some(message_dot(m, props.now_ms, &from, &to, follow.as_ref(), &dispatch))
                    }) }
                </g>
            </svg>
        </figure>
    }
}

fn f(x: f64) -> String {
    format!("{x:.1}")
}

fn ordered(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// The links a cut in place severs: from each node of its smaller side (the
/// nodes cut off) to every broker and controller of the other. Clients are
/// left out; their cut shows on the brokers' side.
fn cut_links(view: &ClusterView) -> Vec<(NodeId, NodeId)> {
    let servers = |side: &[NodeId]| side.iter().copied().filter(|n| !matches!(n, NodeId::Client(_))).collect::<Vec<_>>();
    let mut out = Vec::new();
    for (a, b) in &view.network_cuts {
        let (small, rest) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        for x in servers(small) {
            for y in servers(rest) {
                out.push(ordered(x, y));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

pub fn status_class(status: BrokerStatus) -> &'static str {
    match status {
        BrokerStatus::Running => "running",
        BrokerStatus::Fenced => "fenced",
        BrokerStatus::ShuttingDown => "shutting-down",
        BrokerStatus::Stopped => "stopped",
    }
}

pub fn status_text(t: &'static Texts, status: BrokerStatus) -> &'static str {
    match status {
        BrokerStatus::Running => t.status_running,
        BrokerStatus::Fenced => t.status_fenced,
        BrokerStatus::ShuttingDown => t.status_shutting_down,
        BrokerStatus::Stopped => t.status_stopped,
    }
}

/// A controller's class and the word under its circle.
pub fn controller_role(t: &'static Texts, alive: bool, active: bool, role: Option<&RaftRole>, epoch: i32) -> (&'static str, String) {
    match role {
        _ if !alive => ("stopped", t.status_stopped.to_string()),
        Some(RaftRole::Leader { .. }) if active => ("active", format!("{} · {} {epoch}", t.active_word, t.epoch, )),
        Some(RaftRole::Leader { .. }) => ("leader", t.role_leader.to_string()),
        Some(RaftRole::Follower { .. }) => ("follower", t.role_follower.to_string()),
        Some(RaftRole::Candidate { .. }) => ("candidate", t.role_candidate.to_string()),
        Some(RaftRole::Prospective { .. }) => ("candidate", t.role_prospective.to_string()),
        Some(RaftRole::Unattached { .. }) => ("unattached", t.role_unattached.to_string()),
        Some(RaftRole::Resigned { .. }) => ("unattached", t.role_resigned.to_string()),
        None => ("stopped", t.status_stopped.to_string()),
    }
}

/// A broker on the map: its name and status, and a chip per partition it
/// holds (★ where the metadata names it leader), or a count when the chips
/// would not fit.
fn broker_card(t: &'static Texts, view: &ClusterView, id: u32, status: BrokerStatus, isolated: bool, p: &NodePlace, layout: Layout) -> Html {
    let r = p.rect;
    let held: Vec<(&str, u32, bool, bool)> = view
        .partitions
        .iter()
        .filter(|x| x.replicas.contains(&id))
        .map(|x| (x.topic.as_str(), x.partition, x.leader == Some(id), x.isr.contains(&id)))
        .collect();
    let status_word = if isolated { t.isolated } else { status_text(t, status) };
    let chip_w = 58.0;
    let fits = held.len() as f64 * (chip_w + 4.0) <= r.w - 10.0;
    let leads = held.iter().filter(|h| h.2).count();
    html! {
        <>
            <title>{ format!("{} {id} · {status_word}", t.broker) }</title>
            <rect class="halo" x={f(r.x - 4.0)} y={f(r.y - 4.0)} width={f(r.w + 8.0)} height={f(r.h + 8.0)} rx="10" />
            <rect class="body" x={f(r.x)} y={f(r.y)} width={f(r.w)} height={f(r.h)} rx="7" />
            <circle class="status-dot" cx={f(r.x + 11.0)} cy={f(r.y + 13.0)} r="4" />
            <text class="node-name" x={f(r.x + 20.0)} y={f(r.y + 17.0)}>{ format!("{} {id}", t.broker) }</text>
            if layout == Layout::Wide {
                <text class="node-status" x={f(r.x + r.w - 8.0)} y={f(r.y + 17.0)} text-anchor="end">{ status_word }</text>
            } else if status != BrokerStatus::Running || isolated {
                <text class="node-status" x={f(r.x + 8.0)} y={f(r.y + 31.0)}>{ status_word }</text>
            }
            if fits {
                { for held.iter().enumerate().map(|(i, (topic, part, leader, in_isr))| {
                    let x = r.x + 6.0 + i as f64 * (chip_w + 4.0);
                    let y = r.y + r.h - 25.0;
                    html! {
                        <g class={classes!("chip", leader.then_some("leader"), (!in_isr).then_some("out-of-isr"))}>
                            <rect x={f(x)} y={f(y)} width={f(chip_w)} height="18" rx="4" />
                            <text x={f(x + chip_w / 2.0)} y={f(y + 12.5)} text-anchor="middle">
                                { format!("{}{topic}-{part}", if *leader { "★ " } else { "" }) }
                            </text>
                        </g>
                    }
                }) }
            } else {
                <text class="chip-summary" x={f(r.x + 8.0)} y={f(r.y + r.h - 12.0)}>
                    { format!("★ {leads} · {} {}", held.len(), t.replicas_word) }
                </text>
            }
        </>
    }
}

/// A broker's session as a bar along the card's foot that empties towards
/// the fence, and, when it is running down, the words.
fn broker_countdown(lang: Lang, c: &Countdown, p: &NodePlace) -> Html {
    let r = p.rect;
    let w = (r.w - 12.0) * c.fraction();
    html! {
        <g class={classes!("countdown", "session", c.running_down.then_some("running-down"))}>
            <title>{ countdown::explained(lang, c.kind) }</title>
            <rect class="track" x={f(r.x + 6.0)} y={f(r.y + r.h - 5.0)} width={f(r.w - 12.0)} height="2.5" rx="1" />
            <rect class="left" x={f(r.x + 6.0)} y={f(r.y + r.h - 5.0)} width={f(w)} height="2.5" rx="1" />
            if c.running_down {
                <text class="countdown-label" x={f(r.x + r.w / 2.0)} y={f(r.y + r.h + 13.0)} text-anchor="middle">
                    { countdown::label(lang, c) }
                </text>
            }
        </g>
    }
}

/// A voter's deadline as a ring around its circle, and, when it is running
/// down, the words beside it.
fn controller_countdown(lang: Lang, c: &Countdown, cx: f64, cy: f64, r: f64, layout: Layout) -> Html {
    let ring = r + 3.0;
    let circumference = 2.0 * std::f64::consts::PI * ring;
    let shown = circumference * c.fraction();
    html! {
        <g class={classes!("countdown", "raft", c.running_down.then_some("running-down"))}>
            <title>{ countdown::explained(lang, c.kind) }</title>
            <circle class="left" cx={f(cx)} cy={f(cy)} r={f(ring)}
                stroke-dasharray={format!("{} {}", f(shown), f(circumference))}
                transform={format!("rotate(-90 {} {})", f(cx), f(cy))} />
            if c.running_down {
                if layout == Layout::Wide {
                    <text class="countdown-label" x={f(cx + r + 8.0)} y={f(cy + 4.0)}>{ countdown::label(lang, c) }</text>
                } else {
                    <text class="countdown-label" x={f(cx)} y={f(cy + r + 22.0)} text-anchor="middle">{ countdown::label(lang, c) }</text>
                }
            }
        </g>
    }
}

/// A producer's soonest deadline, under its pill.
fn client_countdown(lang: Lang, c: &Countdown, p: &NodePlace) -> Html {
    let r = p.rect;
    html! {
        <g class="countdown client running-down" aria-hidden="true">
            <title>{ countdown::explained(lang, c.kind) }</title>
            <text class="countdown-label" x={f(r.x + r.w / 2.0)} y={f(r.y + r.h + 11.0)} text-anchor="middle">{ countdown::label(lang, c) }</text>
        </g>
    }
}

/// A client under the brokers: its id and what it is.
fn client_pill(t: &'static Texts, view: &ClusterView, id: NodeId, p: &NodePlace, layout: Layout) -> Html {
    let r = p.rect;
    let (class, what) = match view.producers.iter().find(|x| x.id == id) {
        Some(producer) => {
            let acks = if producer.acks == -1 { "all".to_string() } else { producer.acks.to_string() };
            ("producer", if layout == Layout::Wide { format!("{} · acks={acks}", t.producer_word) } else { format!("acks={acks}") })
        }
        None => ("consumer", t.consumer_word.to_string()),
    };
    debug_assert!(matches!(p.kind, NodeKind::Client));
    html! {
        <g class={classes!("map-node", "client", class)} aria-hidden="true">
            <title>{ format!("{id} · {what}") }</title>
            <rect class="body" x={f(r.x)} y={f(r.y)} width={f(r.w)} height={f(r.h)} rx={f(r.h / 2.0)} />
            <text class="node-name" x={f(r.x + r.w / 2.0)} y={f(r.y + 12.0)} text-anchor="middle">{ id.to_string() }</text>
            <text class="node-role" x={f(r.x + r.w / 2.0)} y={f(r.y + 24.0)} text-anchor="middle">{ what }</text>
        </g>
    }
}

/// How far along its link a message is, from 0 (just sent) to 1 (arriving).
pub fn progress(now_ms: f64, m: &InFlightView) -> f64 {
    let trip = m.arrives_at_ms.saturating_sub(m.sent_at_ms) as f64;
    if trip <= 0.0 {
        return 1.0;
    }
    ((now_ms - m.sent_at_ms as f64) / trip).clamp(0.0, 1.0)
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

fn message_class(m: &InFlightView) -> &'static str {
    match (&m.rpc, m.api, m.follower_fetch) {
        (Some(rpc), _, _) => control_class(rpc),
        (None, ApiKey::Fetch, true) => "follower-fetch",
        (None, ApiKey::Produce, _) => "produce",
        (None, ApiKey::Fetch, false) => "fetch",
        (None, ApiKey::Metadata, _) => "metadata",
        (None, ApiKey::InitProducerId, _) => "init-producer-id",
    }
}

/// One message on its link. The learner's own requests are larger and
/// named; a data-plane message is a button that follows its request.
fn message_dot(
    m: &InFlightView,
    now_ms: f64,
    from: &NodePlace,
    to: &NodePlace,
    follow: Option<&FollowContext>,
    dispatch: &crate::ui::state::Dispatch,
) -> Html {
    let ((x1, y1), (x2, y2)) = layout::link_ends(from, to);
    let p = progress(now_ms, m);
    let (x, y) = (x1 + (x2 - x1) * p, y1 + (y2 - y1) * p);
    let response = m.direction == Direction::Response;
    let mine = matches!(m.request.client, NodeId::Client(_)) && m.rpc.is_none();
    let key = format!("{}>{}#{}{}", m.from, m.to, m.request, if response { "r" } else { "q" });
    let name = m.rpc.clone().unwrap_or_else(|| m.api.name().to_string());
    let followed = follow.is_some_and(|f| f.followed == Some(m.request));
    let class = classes!(
        "dot",
        message_class(m),
        response.then_some("response"),
        mine.then_some("mine"),
        followed.then_some("followed"),
        (!mine && !followed).then_some("background")
    );
    let style = format!("transform: translate({x:.1}px, {y:.1}px)");
    let title = format!("{name} {} → {}", m.from, m.to);
    let r = if mine || followed { 7 } else { 4 };
    if m.rpc.is_some() {
        return html! {
            <g {key} {class} {style} aria-hidden="true"><title>{ title }</title><circle r={r.to_string()} /></g>
        };
    }
    let onclick = {
        let (dispatch, request, api) = (dispatch.clone(), m.request, m.api);
        Callback::from(move |e: MouseEvent| {
            e.stop_propagation();
            dispatch.dispatch(Action::Follow(Followed { request, api }));
        })
    };
    html! {
        <g {key} {class} {style} role="button" tabindex="-1" aria-label={format!("Follow {} {}", m.api.name(), m.request)} {onclick}>
            <title>{ title }</title>
            <circle r={r.to_string()} />
            if mine {
                <text y="-10" text-anchor="middle">{ name }</text>
            }
        </g>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_moves_from_sender_to_receiver_with_time() {
        let view = crate::ui::session::Session::default().view();
        let m = InFlightView { sent_at_ms: 100, arrives_at_ms: 104, ..view.in_flight[0].clone() };
        assert_eq!(progress(100.0, &m), 0.0);
        assert_eq!(progress(102.0, &m), 0.5);
        assert_eq!(progress(103.5, &m), 0.875);
        assert_eq!(progress(110.0, &m), 1.0);
    }
}
