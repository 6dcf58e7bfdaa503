use crate::ui::contexts::FollowContext;
use crate::sim::collections::BTreeSet;
use crate::sim::trace::{Direction, Stage as SimStage};
use crate::sim::view::{FetcherView, Token};
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{Lang, Texts};
use crate::ui::layout::{self, Layout, Place, Rect};
use crate::ui::state::{Action, Followed};
use crate::ui::tokens;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PipelineProps {
    pub layout: Layout,
    pub network_threads: u32,
    pub io_threads: u32,
    pub request_queue_capacity: u32,
    /// Every token inside the broker, with its place.
    pub tokens: Rc<Vec<(Place, Token)>>,
    /// The stages here that the followed request has been in.
    pub visited: BTreeSet<SimStage>,
    /// This broker's replica fetchers: (leader, partitions, a fetch in flight).
    pub fetchers: Vec<FetcherView>,
    /// This broker's logs, one row a partition.
    pub logs: Vec<LogRow>,
    /// When each operation in purgatory expires, soonest first.
    pub purgatory_deadlines: Vec<i64>,
}

/// One partition's log on this broker, as the stage shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRow {
    pub name: String,
    pub leader: bool,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    /// The broker is down: the log waits on disk.
    pub on_disk: bool,
}

/// A broker's request path as a picture: requests move right along the top,
/// responses come back left along the bottom, and each request or response
/// is a token that glides from stage to stage (one layer of keyed tokens
/// over the stages, so a token keeps its element and the stylesheet's
/// transition animates its move).
#[function_component(Pipeline)]
pub fn pipeline(props: &PipelineProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let follow = use_context::<FollowContext>();
    let dispatch = use_dispatch();
    let layout = props.layout;
    let (width, height) = layout::pipeline_size(layout, props.io_threads);
    let places = layout::pipeline_places(layout, props.network_threads, props.io_threads);
    let token_w = places.iter().filter(|(p, _)| !matches!(p, Place::ReplicaFetchers | Place::Logs)).map(|(_, r)| r.w).fold(f64::MAX, f64::min) - 8.0;
    let in_place = |place: Place| props.tokens.iter().filter(move |(p, _)| *p == place).map(|(_, t)| t);
    let mut drawn: Vec<(Rect, Token)> = Vec::new();
    let mut overflow: Vec<(Rect, usize)> = Vec::new();
    for (place, area) in &places {
        let here: Vec<&Token> = in_place(*place).collect();
        for (i, token) in here.iter().enumerate() {
            match layout::token_rect(area, i) {
                Some(mut r) => {
                    r.w = token_w.min(r.w);
                    drawn.push((r, (*token).clone()));
                }
                None => {
                    overflow.push((*area, here.len() - i));
                    break;
                }
            }
        }
    }
    html! {
        <svg class={classes!("pipeline", matches!(layout, Layout::Narrow).then_some("narrow"))}
            viewBox={format!("0 0 {width} {height}")} role="group" aria-label="Request path">
            { arrows(layout, &places) }
            { for places.iter().map(|(place, area)| {
                let (name, shown) = place_names(t, *place, props.request_queue_capacity, in_place(*place).count());
                let busy = in_place(*place).next().is_some();
                let visited = stage_of(*place).is_some_and(|s| props.visited.contains(&s));
                html! {
                    <g class={classes!("place", place_class(*place), busy.then_some("busy"), visited.then_some("visited"))}
                        role="group" aria-label={name}>
                        <rect x={f(area.x)} y={f(area.y)} width={f(area.w)} height={f(area.h)} rx="6" />
                        <text class="place-name" x={f(area.x + 6.0)} y={f(area.y + 12.5)}>{ shown }</text>
                    </g>
                }
            }) }
            { for overflow.iter().map(|(area, more)| html! {
                <text class="overflow" x={f(area.x + area.w - 6.0)} y={f(area.y + area.h - 5.0)} text-anchor="end">
                    { format!("+{more}") }
                </text>
            }) }
            { for places.iter().filter(|(p, _)| *p == Place::ReplicaFetchers).map(|(_, area)| fetcher_lines(t, area, &props.fetchers)) }
            { for places.iter().filter(|(p, _)| *p == Place::Logs).map(|(_, area)| log_lines(t, area, &props.logs)) }
            { for places.iter().filter(|(p, _)| *p == Place::Purgatory).map(|(_, area)| html! {
                <super::PurgatoryClock area={*area} deadlines={props.purgatory_deadlines.clone()} />
            }) }
            <g class="tokens">
                { for token_keys(&drawn).into_iter().zip(drawn.iter()).map(|(key, (r, token))| token_svg(t, key, r, token, follow.as_ref(), &dispatch)) }
            </g>
        </svg>
    }
}

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// The English name of a place (its accessible name, which tests and
/// assistive tools read) and the name shown in the page's language.
fn place_names(t: &'static Texts, place: Place, capacity: u32, queued: usize) -> (String, String) {
    match place {
        Place::SocketReceiveBuffer => ("Socket receive buffer".into(), t.socket_receive_buffer.into()),
        Place::NetworkThread(n) => (format!("Network thread {n}"), format!("{} {n}", t.network_thread)),
        Place::RequestQueue => (
            format!("Request queue ({queued}/{capacity})"),
            format!("{} ({queued}/{capacity})", t.request_queue),
        ),
        Place::IoThread(n) => (format!("I/O thread {n}"), format!("{} {n}", t.io_thread)),
        Place::LogAppend => ("Log append".into(), t.log_append.into()),
        Place::LogRead => ("Log read".into(), t.log_read.into()),
        Place::Purgatory => ("Purgatory".into(), t.purgatory.into()),
        Place::ResponseQueue(n) => (format!("Response queue {n}"), format!("{} {n}", t.response_queue)),
        Place::SocketSendBuffer => ("Socket send buffer".into(), t.socket_send_buffer.into()),
        Place::ReplicaFetchers => ("Replica fetchers".into(), t.replica_fetchers.into()),
        Place::Logs => ("Logs".into(), t.logs_word.into()),
    }
}

fn place_class(place: Place) -> &'static str {
    match place {
        Place::SocketReceiveBuffer | Place::SocketSendBuffer => "socket",
        Place::NetworkThread(_) => "network-thread",
        Place::RequestQueue | Place::ResponseQueue(_) => "queue",
        Place::IoThread(_) => "io-thread",
        Place::LogAppend | Place::LogRead => "log",
        Place::Purgatory => "purgatory",
        Place::ReplicaFetchers => "fetchers",
        Place::Logs => "logs",
    }
}

/// The trace's stage for a place, to mark where the followed request went.
fn stage_of(place: Place) -> Option<SimStage> {
    Some(match place {
        Place::SocketReceiveBuffer => SimStage::SocketReceiveBuffer,
        Place::NetworkThread(n) => SimStage::NetworkThread(n),
        Place::RequestQueue => SimStage::RequestQueue,
        Place::IoThread(n) => SimStage::IoThread(n),
        Place::LogAppend => SimStage::LogAppend,
        Place::LogRead => SimStage::LogRead,
        Place::Purgatory => SimStage::Purgatory,
        Place::ResponseQueue(n) => SimStage::ResponseQueue(n),
        Place::SocketSendBuffer => SimStage::SocketSendBuffer,
        Place::ReplicaFetchers | Place::Logs => return None,
    })
}

/// The way requests go: right along the top row, and back left along the
/// bottom row (the wide layout); down the page (the narrow one).
fn arrows(layout: Layout, places: &[(Place, Rect)]) -> Html {
    let find = |p: Place| places.iter().find(|(q, _)| *q == p).map(|(_, r)| *r);
    let mut paths = Vec::new();
    if layout == Layout::Wide {
        let top = [Place::SocketReceiveBuffer, Place::NetworkThread(0), Place::RequestQueue, Place::IoThread(0), Place::LogAppend, Place::Purgatory];
        for pair in top.windows(2) {
            if let (Some(a), Some(b)) = (find(pair[0]), find(pair[1])) {
                let y = find(Place::RequestQueue).map_or(a.y + 50.0, |q| q.y + q.h / 2.0);
                paths.push(format!("M{} {y} L{} {y}", f(a.x + a.w + 2.0), f(b.x - 3.0)));
            }
        }
        let bottom = [Place::Purgatory, Place::LogRead, Place::IoThread(0), Place::ResponseQueue(0), Place::NetworkThread(0), Place::SocketSendBuffer];
        for pair in bottom.windows(2) {
            if let (Some(a), Some(b)) = (find(pair[0]), find(pair[1])) {
                let y = find(Place::LogRead).map_or(a.y + 150.0, |q| q.y + q.h / 2.0);
                paths.push(format!("M{} {y} L{} {y}", f(a.x - 2.0), f(b.x + b.w + 3.0)));
            }
        }
    }
    html! {
        <g class="flow" aria-hidden="true">
            { for paths.iter().map(|d| html! { <path d={d.clone()} marker-end="url(#flow-head)" /> }) }
            <defs>
                <marker id="flow-head" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                    <path d="M0 0 L6 3 L0 6 z" />
                </marker>
            </defs>
        </g>
    }
}

/// The replica fetchers, one line each: whom they fetch from, which
/// partitions, and whether a fetch is out.
fn fetcher_lines(t: &'static Texts, area: &Rect, fetchers: &[FetcherView]) -> Html {
    let rows = ((area.h - layout::TITLE_H) / 13.0).floor().max(1.0) as usize;
    html! {
        <g class="fetcher-lines">
            if fetchers.is_empty() {
                <text class="quiet" x={f(area.x + 6.0)} y={f(area.y + layout::TITLE_H + 9.0)}>{ t.no_fetchers }</text>
            }
            { for fetchers.iter().take(rows).enumerate().map(|(i, fetcher)| {
                let parts: Vec<String> = fetcher.partitions.iter().map(|p| p.to_string()).collect();
                let y = area.y + layout::TITLE_H + 9.0 + i as f64 * 13.0;
                html! {
                    <text class={classes!("line", fetcher.in_flight.then_some("active"))} x={f(area.x + 6.0)} y={f(y)}>
                        <title>{ if fetcher.in_flight { t.fetch_in_flight } else { t.fetcher_idle } }</title>
                        { format!("{} {} {} · {}", if fetcher.in_flight { "⇄" } else { "→" }, t.broker, fetcher.leader, parts.join(", ")) }
                    </text>
                }
            }) }
        </g>
    }
}

/// The partitions' logs on this broker: a bar from offset 0 to the log end
/// offset, filled to the high watermark (the committed part).
fn log_lines(t: &'static Texts, area: &Rect, logs: &[LogRow]) -> Html {
    let rows = ((area.h - layout::TITLE_H) / 12.0).floor().max(1.0) as usize;
    let max = logs.iter().map(|l| l.log_end_offset).max().unwrap_or(0).max(1) as f64;
    let name_w = (area.w * 0.36).min(96.0);
    let bar_x = area.x + 6.0 + name_w;
    let bar_w = (area.w - name_w - 84.0).max(16.0);
    html! {
        <g class="log-lines">
            { for logs.iter().take(rows).enumerate().map(|(i, log)| {
                let y = area.y + layout::TITLE_H + 2.0 + i as f64 * 12.0;
                let hw = bar_w * log.high_watermark.max(0) as f64 / max;
                let leo = bar_w * log.log_end_offset.max(0) as f64 / max;
                html! {
                    <g class={classes!("log-row", log.leader.then_some("leader"), log.on_disk.then_some("on-disk"))}>
                        <title>{ if log.on_disk { t.log_on_disk } else if log.leader { t.leader_word } else { t.follower_word } }</title>
                        <text x={f(area.x + 6.0)} y={f(y + 8.0)}>{ format!("{}{}", if log.leader { "★ " } else { "" }, log.name) }</text>
                        <rect class="bar" x={f(bar_x)} y={f(y + 1.0)} width={f(bar_w)} height="8" rx="2" />
                        <rect class="bar-leo" x={f(bar_x)} y={f(y + 1.0)} width={f(leo)} height="8" rx="2" />
                        <rect class="bar-hw" x={f(bar_x)} y={f(y + 1.0)} width={f(hw)} height="8" rx="2" />
                        <text class="offsets" x={f(bar_x + bar_w + 6.0)} y={f(y + 8.0)}>
                            { format!("LEO {} · HW {}", log.log_end_offset, log.high_watermark) }
                        </text>
                    </g>
                }
            }) }
            if logs.len() > rows {
                <text class="overflow" x={f(area.x + area.w - 6.0)} y={f(area.y + 12.5)} text-anchor="end">{ format!("+{}", logs.len() - rows) }</text>
            }
        </g>
    }
}

/// A key per token, unique in the broker: its request and which way it goes
/// (what lets a token keep its element from stage to stage), and a count
/// for a second token that agrees, since Yew refuses a repeated key.
fn token_keys(drawn: &[(Rect, Token)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(drawn.len());
    for (_, token) in drawn {
        let base = format!("{}{}", token.request, if token.direction == Direction::Response { "r" } else { "q" });
        let n = out.iter().filter(|k| k.split('~').next() == Some(base.as_str())).count();
        out.push(if n == 0 { base } else { format!("{base}~{n}") });
    }
    out
}

/// A token in the picture: a button that follows its request.
fn token_svg(t: &'static Texts, key: String, r: &Rect, token: &Token, follow: Option<&FollowContext>, dispatch: &crate::ui::state::Dispatch) -> Html {
    let followed = follow.is_some_and(|f| f.followed == Some(token.request));
    let releaser = follow.is_some_and(|f| f.releasers.contains(&token.request));
    let mine = matches!(token.request.client, crate::sim::ids::NodeId::Client(_));
    let class = classes!(
        "tok",
        tokens::kind_class(token),
        (token.direction == Direction::Response).then_some("response"),
        followed.then_some("followed"),
        releaser.then_some("releaser"),
        (!mine && !followed && !releaser).then_some("background")
    );
    let onclick = {
        let (dispatch, request, api) = (dispatch.clone(), token.request, token.api);
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::Follow(Followed { request, api })))
    };
    let label = tokens::short_label(token, t.replica_fetch_word);
    let onkeydown = {
        let (dispatch, request, api) = (dispatch.clone(), token.request, token.api);
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                dispatch.dispatch(Action::Follow(Followed { request, api }));
            }
        })
    };
    html! {
        <g {key} {class} style={format!("transform: translate({}px, {}px)", f(r.x), f(r.y))} role="button" tabindex="0"
            aria-pressed={followed.to_string()} aria-label={format!("Follow {} {}", token.api.name(), token.request)} {onclick} {onkeydown}>
            <title>{ format!("{} {}", token.api.name(), token.request) }</title>
            <rect width={f(r.w)} height={f(r.h)} rx="4" />
            <text x="6" y={f(r.h / 2.0)} dy="0.35em">{ label }</text>
        </g>
    }
}
