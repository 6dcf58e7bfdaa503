use crate::ui::contexts::FollowContext;
use super::stage::Shown;
use crate::sim::ids::NodeId;
use crate::sim::protocol::ApiKey;
use crate::sim::raft::state::RaftRole;
use crate::sim::trace::Direction;
use crate::sim::view::{BrokerStatus, ClusterView, InFlightView};
use crate::ui::countdown;
use crate::ui::svg::{Num, Svg};
use crate::ui::faults;
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{Lang, Texts};
use crate::ui::layout::{self, Layout, NodePlace};
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
    /// Background messages with a shorter trip are not drawn (see
    /// `player::shortest_drawn_trip_ms`).
    #[prop_or_default]
    pub shortest_trip_ms: u64,
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
        // A sorted set, not std's sort: the page links no std sort.
        let l: crate::sim::collections::BTreeSet<(NodeId, NodeId)> = view.in_flight.iter().map(|f| ordered(f.from, f.to)).collect();
        l.into_iter().collect()
    };
    let cut_links: Vec<(NodeId, NodeId)> = cut_links(view);

    html! {
        <figure class={classes!("cluster-map", matches!(layout, Layout::Narrow).then_some("narrow"))}>
            <svg viewBox={format!("0 0 {} {}", Num(width), Num(height))} role="group" aria-label={label.clone()}>
                <title>{ label }</title>
                { links_markup(view, &links, &cut_links, layout) }
                { for view.quorum.iter().flat_map(|q| q.controllers.iter()).filter_map(|c| {
                    let p = place(NodeId::Controller(c.id))?;
                    let selected = props.shown == Some(Shown::Controller(c.id));
                    let (class, role) = controller_role(t, c.alive, c.active, c.raft.as_ref().map(|r| &r.role), c.raft.as_ref().map_or(0, |r| r.epoch));
                    let isolated = faults::is_cut_off(view, NodeId::Controller(c.id));
                    Some(html! {
                        <g class={classes!("map-node", "controller", class, selected.then_some("selected"), isolated.then_some("isolated"))}
                            role="button" tabindex="0" aria-pressed={selected.to_string()} aria-label={format!("Controller {}", c.id)}
                            onclick={select(Selection::Controller(c.id))} onkeydown={keys(Selection::Controller(c.id))}>
                            { controller_body(lang, view, c.id, &role, &p, props.now_ms, layout) }
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
                            { broker_card(lang, view, b.id, b.status, isolated, &p, layout, props.now_ms) }
                        </g>
                    })
                }) }
                { clients_markup(lang, view, layout, props.now_ms) }
                <g class="messages">
                    { for message_keys(&view.in_flight).into_iter().zip(view.in_flight.iter()).filter_map(|(key, m)| {
                        let followed = follow.as_ref().is_some_and(|f| f.followed == Some(m.request));
                        if !drawn(m, props.shortest_trip_ms, followed) {
                            return None;
                        }
                        let (from, to) = (place(m.from)?, place(m.to)?);
                        Some(message_dot(m, key, props.now_ms, &from, &to, follow.as_ref(), &dispatch))
                    }) }
                </g>
            </svg>
        </figure>
    }
}

/// Whether a message in flight gets a dot: the learner's own and the
/// followed one always, the background when its trip is at least
/// `shortest_trip_ms`.
pub fn drawn(m: &InFlightView, shortest_trip_ms: u64, followed: bool) -> bool {
    is_mine(m) || followed || m.arrives_at_ms.saturating_sub(m.sent_at_ms) >= shortest_trip_ms
}

/// A client's data-plane request or its response: the learner's own traffic.
fn is_mine(m: &InFlightView) -> bool {
    matches!(m.request.client, NodeId::Client(_)) && m.rpc.is_none()
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
    let mut out = crate::sim::collections::BTreeSet::new();
    for (a, b) in &view.network_cuts {
        let (small, rest) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        for x in servers(small) {
            for y in servers(rest) {
                out.insert(ordered(x, y));
            }
        }
    }
    out.into_iter().collect()
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

/// The links a message travels now, under everything else; a cut link is
/// drawn dashed with scissors, because nothing crosses it.
fn links_markup(view: &ClusterView, links: &[(NodeId, NodeId)], cuts: &[(NodeId, NodeId)], layout: Layout) -> Html {
    let place = |node| layout::node_place(view, node, layout);
    let mut svg = Svg::new();
    svg.raw(r#"<g class="links" aria-hidden="true">"#);
    for (a, b) in links {
        if let (Some(pa), Some(pb)) = (place(*a), place(*b)) {
            let (from, to) = layout::link_ends(&pa, &pb);
            svg.line("link", from, to);
        }
    }
    for (a, b) in cuts {
        if let (Some(pa), Some(pb)) = (place(*a), place(*b)) {
            let (from, to) = layout::link_ends(&pa, &pb);
            svg.group("cut").line("link cut", from, to).text("", (from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0 + 4.0, "middle", "✂").close();
        }
    }
    svg.close();
    svg.into_html()
}

/// A controller's circle, its name and role, and its Raft deadline as a
/// ring (with words when it is running down).
fn controller_body(lang: Lang, view: &ClusterView, id: u32, role: &str, p: &NodePlace, now_ms: f64, layout: Layout) -> Html {
    let t = lang.texts();
    let (cx, cy) = p.rect.center();
    let r = p.rect.w / 2.0;
    let mut svg = Svg::new();
    svg.title(&format!("{} {id} · {role}", t.controller))
        .circle("halo", cx, cy, r + 5.0)
        .circle("body", cx, cy, r)
        .text("node-name", cx, cy + 4.0, "middle", &format!("C{id}"))
        .text("node-role", cx, cy + r + 11.0, "middle", role);
    // The ring moves on every frame: it is an element whose attributes
    // change, apart from the markup, which changes only with the role, so
    // the circle and its words are not parsed again sixty times a second.
    let ring = countdown::controller(view, id, now_ms).map(|c| {
        let ring = r + 3.0;
        let circumference = 2.0 * std::f64::consts::PI * ring;
        let label = c.running_down.then(|| countdown::label(lang, &c));
        let (lx, ly, anchor) = layout::ring_label(layout, cx, cy, r);
        html! {
            <g class={if c.running_down { "countdown raft running-down" } else { "countdown raft" }}>
                <title>{ countdown::explained(lang, c.kind) }</title>
                <circle class="left" cx={Num(cx).to_string()} cy={Num(cy).to_string()} r={Num(ring).to_string()}
                    stroke-dasharray={format!("{} {}", Num(circumference * c.fraction()), Num(circumference))}
                    transform={format!("rotate(-90 {} {})", Num(cx), Num(cy))} />
                if let Some(label) = label {
                    <text class="countdown-label" x={Num(lx).to_string()} y={Num(ly).to_string()} text-anchor={anchor}>{ label }</text>
                }
            </g>
        }
    });
    html! { <>{ svg.into_html() }{ for ring }</> }
}

/// A broker on the map: its name and status, a chip per partition it holds
/// (★ where the metadata names it leader) or a count when the chips would
/// not fit, and its session as a bar along the card's foot that empties
/// towards the fence (with words when it is running down).
#[allow(clippy::too_many_arguments)]
fn broker_card(lang: Lang, view: &ClusterView, id: u32, status: BrokerStatus, isolated: bool, p: &NodePlace, layout: Layout, now_ms: f64) -> Html {
    let t = lang.texts();
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
    let mut svg = Svg::new();
    svg.title(&format!("{} {id} · {status_word}", t.broker))
        .rect("halo", r.x - 4.0, r.y - 4.0, r.w + 8.0, r.h + 8.0, 10.0)
        .rect("body", r.x, r.y, r.w, r.h, 7.0)
        .circle("status-dot", r.x + 11.0, r.y + 13.0, 4.0)
        .text("node-name", r.x + 20.0, r.y + 17.0, "start", &format!("{} {id}", t.broker));
    if layout == Layout::Wide {
        svg.text("node-status", r.x + r.w - 8.0, r.y + 17.0, "end", status_word);
    } else if status != BrokerStatus::Running || isolated {
        svg.text("node-status", r.x + 8.0, r.y + 31.0, "start", status_word);
    }
    if fits {
        for (i, (topic, part, leader, in_isr)) in held.iter().enumerate() {
            let x = r.x + 6.0 + i as f64 * (chip_w + 4.0);
            let y = r.y + r.h - 25.0;
            let class = match (leader, in_isr) {
                (true, _) => "chip leader",
                (false, false) => "chip out-of-isr",
                (false, true) => "chip",
            };
            svg.group(class)
                .rect("", x, y, chip_w, 18.0, 4.0)
                .text("", x + chip_w / 2.0, y + 12.5, "middle", &format!("{}{topic}-{part}", if *leader { "★ " } else { "" }))
                .close();
        }
    } else {
        svg.text("chip-summary", r.x + 8.0, r.y + r.h - 12.0, "start", &format!("★ {leads} · {} {}", held.len(), t.replicas_word));
    }
    // The session bar empties on every frame: an element whose width
    // changes, apart from the card's markup (see `controller_body`).
    let session = countdown::broker_session(view, id, now_ms).map(|c| {
        let (x, y, w) = (r.x + 6.0, r.y + r.h - 5.0, r.w - 12.0);
        let label = c.running_down.then(|| countdown::label(lang, &c));
        html! {
            <g class={if c.running_down { "countdown session running-down" } else { "countdown session" }}>
                <title>{ countdown::explained(lang, c.kind) }</title>
                <rect class="track" x={Num(x).to_string()} y={Num(y).to_string()} width={Num(w).to_string()} height="2.5" rx="1.0" />
                <rect class="left" x={Num(x).to_string()} y={Num(y).to_string()} width={Num(w * c.fraction()).to_string()} height="2.5" rx="1.0" />
                if let Some(label) = label {
                    <text class="countdown-label" x={Num(r.x + r.w / 2.0).to_string()} y={Num(r.y + r.h + 13.0).to_string()} text-anchor="middle">{ label }</text>
                }
            </g>
        }
    });
    html! { <>{ svg.into_html() }{ for session }</> }
}

/// The clients under the brokers: each one's id and what it is, and a
/// producer's soonest deadline under its pill.
fn clients_markup(lang: Lang, view: &ClusterView, layout: Layout, now_ms: f64) -> Html {
    let t = lang.texts();
    let mut svg = Svg::new();
    for id in layout::clients(view) {
        let Some(p) = layout::node_place(view, id, layout) else { continue };
        let r = p.rect;
        let (class, what) = match view.producers.iter().find(|x| x.id == id) {
            Some(producer) => {
                let acks = if producer.acks == -1 { "all".to_string() } else { producer.acks.to_string() };
                let what = match layout {
                    Layout::Wide => format!("{} · acks={acks}", t.producer_word),
                    Layout::Narrow => format!("acks={acks}"),
                };
                ("map-node client producer", what)
            }
            None => ("map-node client consumer", t.consumer_word.to_string()),
        };
        svg.group(class)
            .title(&format!("{id} · {what}"))
            .rect("body", r.x, r.y, r.w, r.h, r.h / 2.0)
            .text("node-name", r.x + r.w / 2.0, r.y + 12.0, "middle", &id.to_string())
            .text("node-role", r.x + r.w / 2.0, r.y + 24.0, "middle", &what)
            .close();
        if let Some(c) = countdown::producer(view, id, now_ms) {
            svg.group("countdown client running-down")
                .title(countdown::explained(lang, c.kind))
                .text("countdown-label", r.x + r.w / 2.0, r.y + r.h + 11.0, "middle", &countdown::label(lang, &c))
                .close();
        }
    }
    svg.into_html()
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

/// A key per message in flight, unique and stable while it travels: its
/// link, its request and which way it goes, its RPC and when it was sent,
/// and a count for two that still agree (two control-plane RPCs of one
/// broker can share a request id). Yew refuses a keyed list with a repeated
/// key, and the page would panic.
pub fn message_keys(in_flight: &[InFlightView]) -> Vec<String> {
    let mut seen: crate::sim::collections::BTreeMap<String, u32> = crate::sim::collections::BTreeMap::new();
    in_flight
        .iter()
        .map(|m| {
            let way = if m.direction == Direction::Response { "r" } else { "q" };
            let base = format!("{}>{}#{}{way}{}@{}", m.from, m.to, m.request, m.rpc.as_deref().unwrap_or(""), m.sent_at_ms);
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                base
            } else {
                format!("{base}~{n}")
            }
        })
        .collect()
}

/// One message on its link. The learner's own requests are larger and
/// named; a data-plane message is a button that follows its request.
fn message_dot(
    m: &InFlightView,
    key: String,
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
    let mine = is_mine(m);
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
    let style = format!("transform: translate({}px, {}px)", Num(x), Num(y));
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
    fn a_background_message_shorter_than_a_frame_is_not_drawn_while_playing_fast() {
        use crate::ui::player::shortest_drawn_trip_ms;
        let view = crate::ui::session::Session::default().view();
        let background = InFlightView { sent_at_ms: 100, arrives_at_ms: 102, ..view.in_flight[0].clone() };
        assert!(background.rpc.is_some() || !matches!(background.request.client, NodeId::Client(_)), "the opening's first message is the cluster's own");
        let mine = InFlightView { request: crate::sim::ids::RequestId { client: NodeId::Client(0), ..background.request }, rpc: None, ..background.clone() };
        // Paused or stepping: every message has its dot.
        assert_eq!(shortest_drawn_trip_ms(false, 100.0), 0);
        assert!(drawn(&background, shortest_drawn_trip_ms(false, 100.0), false));
        // At 100× a frame covers about 1.7 simulated seconds: the 2 ms trip
        // would flicker, the learner's own message and the followed one stay.
        let fast = shortest_drawn_trip_ms(true, 100.0);
        assert_eq!(fast, 1_666);
        assert!(!drawn(&background, fast, false));
        assert!(drawn(&background, fast, true));
        assert!(drawn(&mine, fast, false));
        // At 0.1× a frame covers under 2 ms: the trip is drawn.
        assert!(drawn(&background, shortest_drawn_trip_ms(true, 0.1), false));
        // A held frame has no rate: everything is drawn.
        assert!(drawn(&background, shortest_drawn_trip_ms(true, 0.0), false));
    }

    #[test]
    fn every_message_in_flight_gets_its_own_key() {
        let view = crate::ui::session::Session::default().view();
        let m = view.in_flight[0].clone();
        // Two messages that agree on everything the key reads, and a third.
        let twins = vec![m.clone(), m.clone(), InFlightView { sent_at_ms: m.sent_at_ms + 1, ..m.clone() }];
        let keys = message_keys(&twins);
        assert_eq!(keys.len(), 3);
        assert!(keys[0] != keys[1] && keys[1] != keys[2] && keys[0] != keys[2], "{keys:?}");
        // Play a while: every view's keys are unique.
        let mut s = crate::ui::session::Session::default();
        s.command_now(crate::sim::simulation::Command::KillController { controller: 0 }).unwrap();
        for _ in 0..3_000 {
            s.step();
            let keys = message_keys(&s.view().in_flight);
            let mut unique = keys.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), keys.len(), "{keys:?}");
        }
    }

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
