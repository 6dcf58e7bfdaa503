use crate::ui::contexts::FollowContext;
use crate::sim::collections::BTreeSet;
use crate::sim::trace::{Direction, Stage as SimStage};
use crate::sim::view::{FetcherView, Token};
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{Lang, Texts};
use crate::ui::layout::{self, Layout, Place, Rect};
use crate::ui::state::{Action, Followed};
use crate::ui::svg::{esc, Svg};
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
    // The boxes, arrows, fetcher and log lines are written as markup (the
    // page's smallest way to draw them), a piece per box, so a box that
    // turns busy is parsed again alone; the tokens stay elements, keyed, so
    // the stylesheet's transition animates each one's move.
    let mut pieces: Vec<Html> = Vec::with_capacity(places.len() + 4);
    let mut svg = Svg::new();
    arrows(&mut svg, layout, &places);
    pieces.push(svg.into_html());
    for (place, area) in &places {
        let mut svg = Svg::new();
        let (name, shown) = place_names(t, *place, props.request_queue_capacity, in_place(*place).count());
        let busy = in_place(*place).next().is_some();
        let visited = stage_of(*place).is_some_and(|s| props.visited.contains(&s));
        let class = format!("place {}{}{}", place_class(*place), if busy { " busy" } else { "" }, if visited { " visited" } else { "" });
        svg.raw(&format!(r#"<g class="{class}" role="group" aria-label="{}">"#, esc(&name)))
            .rect("", area.x, area.y, area.w, area.h, 6.0)
            .text("place-name", area.x + 6.0, area.y + 12.5, "start", &shown)
            .close();
        match place {
            Place::ReplicaFetchers => fetcher_lines(&mut svg, t, area, &props.fetchers),
            Place::Logs => log_lines(&mut svg, t, area, &props.logs),
            _ => {}
        }
        pieces.push(svg.into_html());
    }
    let mut svg = Svg::new();
    for (area, more) in &overflow {
        svg.text("overflow", area.x + area.w - 6.0, area.y + area.h - 5.0, "end", &format!("+{more}"));
    }
    pieces.push(svg.into_html());
    html! {
        <svg class={classes!("pipeline", matches!(layout, Layout::Narrow).then_some("narrow"))}
            viewBox={format!("0 0 {} {}", f(width), f(height))} role="group" aria-label="Request path">
            { for pieces }
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
    crate::ui::svg::Num(x).to_string()
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
fn arrows(svg: &mut Svg, layout: Layout, places: &[(Place, Rect)]) {
    let find = |p: Place| places.iter().find(|(q, _)| *q == p).map(|(_, r)| *r);
    svg.raw(r#"<g class="flow" aria-hidden="true">"#);
    if layout == Layout::Wide {
        let mut path = |(x1, x2): (f64, f64), y: f64| {
            svg.raw(&format!(r#"<path d="M{} {y} L{} {y}" marker-end="url(#flow-head)"/>"#, f(x1), f(x2), y = f(y)));
        };
        let top = [Place::SocketReceiveBuffer, Place::NetworkThread(0), Place::RequestQueue, Place::IoThread(0), Place::LogAppend, Place::Purgatory];
        for pair in top.windows(2) {
            if let (Some(a), Some(b)) = (find(pair[0]), find(pair[1])) {
                let y = find(Place::RequestQueue).map_or(a.y + 50.0, |q| q.y + q.h / 2.0);
                path((a.x + a.w + 2.0, b.x - 3.0), y);
            }
        }
        let bottom = [Place::Purgatory, Place::LogRead, Place::IoThread(0), Place::ResponseQueue(0), Place::NetworkThread(0), Place::SocketSendBuffer];
        for pair in bottom.windows(2) {
            if let (Some(a), Some(b)) = (find(pair[0]), find(pair[1])) {
                let y = find(Place::LogRead).map_or(a.y + 150.0, |q| q.y + q.h / 2.0);
                path((a.x - 2.0, b.x + b.w + 3.0), y);
            }
        }
    }
    svg.raw(r#"<defs><marker id="flow-head" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0 0 L6 3 L0 6 z"/></marker></defs>"#)
        .close();
}

/// The replica fetchers, one line each: whom they fetch from, which
/// partitions, and whether a fetch is out.
fn fetcher_lines(svg: &mut Svg, t: &'static Texts, area: &Rect, fetchers: &[FetcherView]) {
    let rows = ((area.h - layout::TITLE_H) / 13.0).floor().max(1.0) as usize;
    svg.group("fetcher-lines");
    if fetchers.is_empty() {
        svg.text("quiet", area.x + 6.0, area.y + layout::TITLE_H + 9.0, "start", t.no_fetchers);
    }
    for (i, fetcher) in fetchers.iter().take(rows).enumerate() {
        let parts: Vec<String> = fetcher.partitions.iter().map(|p| p.to_string()).collect();
        let y = area.y + layout::TITLE_H + 9.0 + i as f64 * 13.0;
        let line = format!("{} {} {} · {}", if fetcher.in_flight { "⇄" } else { "→" }, t.broker, fetcher.leader, parts.join(", "));
        svg.raw(&format!(
            r#"<text class="line{}" x="{}" y="{}"><title>{}</title>{}</text>"#,
            if fetcher.in_flight { " active" } else { "" },
            f(area.x + 6.0),
            f(y),
            esc(if fetcher.in_flight { t.fetch_in_flight } else { t.fetcher_idle }),
            esc(&line)
        ));
    }
    svg.close();
}

/// The partitions' logs on this broker: a bar from offset 0 to the log end
/// offset, filled to the high watermark (the committed part).
fn log_lines(svg: &mut Svg, t: &'static Texts, area: &Rect, logs: &[LogRow]) {
    let rows = ((area.h - layout::TITLE_H) / 12.0).floor().max(1.0) as usize;
    let max = logs.iter().map(|l| l.log_end_offset).max().unwrap_or(0).max(1) as f64;
    let name_w = (area.w * 0.36).min(96.0);
    let bar_x = area.x + 6.0 + name_w;
    let labels: Vec<String> =
        logs.iter().take(rows).map(|l| format!("LEO {} · HW {}", l.log_end_offset, l.high_watermark)).collect();
    // The offsets end at the box's right edge and the bars give way to
    // them: a load's offsets soon run to four or five digits. About 6.2 px
    // a character of the 10 px bold label, with room to spare.
    let label_w = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * 6.2;
    let bar_w = (area.w - name_w - label_w - 18.0).max(16.0);
    svg.group("log-lines");
    for ((i, log), label) in logs.iter().take(rows).enumerate().zip(&labels) {
        let y = area.y + layout::TITLE_H + 2.0 + i as f64 * 12.0;
        let hw = bar_w * log.high_watermark.max(0) as f64 / max;
        let leo = bar_w * log.log_end_offset.max(0) as f64 / max;
        svg.group(&format!("log-row{}{}", if log.leader { " leader" } else { "" }, if log.on_disk { " on-disk" } else { "" }))
            .title(if log.on_disk { t.log_on_disk } else if log.leader { t.leader_word } else { t.follower_word })
            .text("", area.x + 6.0, y + 8.0, "start", &format!("{}{}", if log.leader { "★ " } else { "" }, log.name))
            .rect("bar", bar_x, y + 1.0, bar_w, 8.0, 2.0)
            .rect("bar-leo", bar_x, y + 1.0, leo, 8.0, 2.0)
            .rect("bar-hw", bar_x, y + 1.0, hw, 8.0, 2.0)
            .text("offsets", area.x + area.w - 6.0, y + 8.0, "end", label)
            .close();
    }
    if logs.len() > rows {
        svg.text("overflow", area.x + area.w - 6.0, area.y + 12.5, "end", &format!("+{}", logs.len() - rows));
    }
    svg.close();
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
