//! Where things sit on the stage: the cluster map's nodes and a broker's
//! stages, in SVG user units, for the wide (desktop) and the narrow (phone)
//! layout. Plain geometry, so native tests check that nothing overlaps and
//! every token lands inside its stage.

use crate::sim::ids::NodeId;
use crate::sim::view::ClusterView;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub const fn new(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    pub fn center(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }

    pub fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x - 1e-9
            && other.y >= self.y - 1e-9
            && other.x + other.w <= self.x + self.w + 1e-9
            && other.y + other.h <= self.y + self.h + 1e-9
    }

    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w && other.x < self.x + self.w && self.y < other.y + other.h && other.y < self.y + self.h
    }
}

/// The two layouts the stage draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Beside the narration, on a desktop or a tablet held across.
    Wide,
    /// A phone held upright: everything in one column.
    Narrow,
}

// ---------------------------------------------------------------------------
// The cluster map
// ---------------------------------------------------------------------------

/// The map's size in user units.
pub fn map_size(layout: Layout) -> (f64, f64) {
    match layout {
        Layout::Wide => (880.0, 210.0),
        Layout::Narrow => (380.0, 214.0),
    }
}

/// How wide a countdown's words ("election timeout in 1.9 s", the longest,
/// about 133 map units at the label's size) may be, with a margin.
pub const COUNTDOWN_WORDS_W: f64 = 140.0;

/// Where a controller's countdown words go, beside its circle of radius
/// `r` at (`cx`, `cy`): the point and the SVG `text-anchor`. On the wide
/// map they sit on the side with more room, so the rightmost voter's words
/// run left instead of past the picture's edge; on the phone, centred
/// below, but never so near an edge that they would be cut off there (the
/// leftmost voter's were, after killing the active controller).
pub fn ring_label(layout: Layout, cx: f64, cy: f64, r: f64) -> (f64, f64, &'static str) {
    let half = COUNTDOWN_WORDS_W / 2.0;
    match layout {
        Layout::Wide if cx > map_size(layout).0 / 2.0 => (cx - r - 8.0, cy + 4.0, "end"),
        Layout::Wide => (cx + r + 8.0, cy + 4.0, "start"),
        Layout::Narrow => (cx.clamp(half, map_size(layout).0 - half), cy + r + 22.0, "middle"),
    }
}

/// How a node is drawn on the map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodePlace {
    pub rect: Rect,
    pub kind: NodeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A circle: controllers are few and their state is one word.
    Controller,
    /// A card: a broker shows its partitions.
    Broker,
    /// A pill under the brokers.
    Client,
}

/// The clients in the order the map draws them: producers, then consumers.
pub fn clients(view: &ClusterView) -> Vec<NodeId> {
    view.producers.iter().map(|p| p.id).chain(view.consumers.iter().map(|c| c.id)).collect()
}

/// Where a node sits: controllers on top, brokers in the middle, clients
/// below, each row spread evenly across the width.
pub fn node_place(view: &ClusterView, node: NodeId, layout: Layout) -> Option<NodePlace> {
    let (width, _) = map_size(layout);
    let spread = |index: usize, count: usize| width * (index as f64 + 0.5) / count as f64;
    let (controller_y, broker_y, client_y) = match layout {
        Layout::Wide => (30.0, 102.0, 178.0),
        Layout::Narrow => (26.0, 102.0, 188.0),
    };
    match node {
        NodeId::Controller(c) => {
            let q = view.quorum.as_ref()?;
            let i = q.controllers.iter().position(|x| x.id == c)?;
            let (cx, r) = (spread(i, q.controllers.len()), 17.0);
            Some(NodePlace { rect: Rect::new(cx - r, controller_y - r, 2.0 * r, 2.0 * r), kind: NodeKind::Controller })
        }
        NodeId::Broker(b) => {
            let i = view.brokers.iter().position(|x| x.id == b)?;
            let n = view.brokers.len();
            let slot = width / n as f64;
            let w = (slot - 12.0).min(match layout {
                Layout::Wide => 226.0,
                Layout::Narrow => 118.0,
            });
            let h = match layout {
                Layout::Wide => 62.0,
                Layout::Narrow => 60.0,
            };
            let cx = spread(i, n);
            Some(NodePlace { rect: Rect::new(cx - w / 2.0, broker_y - h / 2.0, w, h), kind: NodeKind::Broker })
        }
        NodeId::Client(_) => {
            let all = clients(view);
            let i = all.iter().position(|x| *x == node)?;
            let n = all.len();
            let slot = width / n as f64;
            let w = (slot - 10.0).min(160.0);
            let h = 30.0;
            let cx = spread(i, n);
            Some(NodePlace { rect: Rect::new(cx - w / 2.0, client_y - h / 2.0, w, h), kind: NodeKind::Client })
        }
    }
}

/// Where a message between two nodes leaves and arrives: the edges of the
/// two shapes facing each other, so dots travel between nodes, not inside.
pub fn link_ends(from: &NodePlace, to: &NodePlace) -> ((f64, f64), (f64, f64)) {
    let (a, b) = (from.rect.center(), to.rect.center());
    (edge_towards(from, b), edge_towards(to, a))
}

fn edge_towards(place: &NodePlace, target: (f64, f64)) -> (f64, f64) {
    let (cx, cy) = place.rect.center();
    let (dx, dy) = (target.0 - cx, target.1 - cy);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1e-9 {
        return (cx, cy);
    }
    let (hw, hh) = (place.rect.w / 2.0, place.rect.h / 2.0);
    let t = match place.kind {
        NodeKind::Controller => hw / len,
        // The rectangle's edge: the first side the ray from the centre meets.
        _ => {
            let tx = if dx.abs() > 1e-9 { hw / dx.abs() } else { f64::INFINITY };
            let ty = if dy.abs() > 1e-9 { hh / dy.abs() } else { f64::INFINITY };
            tx.min(ty)
        }
    };
    (cx + dx * t, cy + dy * t)
}

// ---------------------------------------------------------------------------
// A broker's insides
// ---------------------------------------------------------------------------

/// The places of a broker's request path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    SocketReceiveBuffer,
    NetworkThread(u32),
    RequestQueue,
    IoThread(u32),
    LogAppend,
    LogRead,
    Purgatory,
    ResponseQueue(u32),
    SocketSendBuffer,
    ReplicaFetchers,
    /// The partitions' logs on this broker (not a stage: their offsets).
    Logs,
}

/// The pipeline's size in user units.
pub fn pipeline_size(layout: Layout, io_threads: u32) -> (f64, f64) {
    match layout {
        Layout::Wide => (880.0, 268.0),
        Layout::Narrow => {
            let rows = narrow_rows(io_threads);
            (380.0, rows.iter().sum::<f64>() + (rows.len() - 1) as f64 * NARROW_GAP + 8.0)
        }
    }
}

const GAP: f64 = 8.0;
const NARROW_GAP: f64 = 5.0;
/// The height of a stage's title line.
pub const TITLE_H: f64 = 17.0;
/// A token's height and the space between two in a stage.
pub const TOKEN_H: f64 = 17.0;
const TOKEN_GAP: f64 = 3.0;

/// Row heights of the narrow layout, top to bottom: socket buffers, network
/// threads, request and response queues, I/O threads, the log, purgatory,
/// and the replica fetchers beside the partitions' logs. Each stage holds
/// one token at least, and the whole fits a phone's first screen under the
/// map.
fn narrow_rows(io_threads: u32) -> [f64; 7] {
    let io_rows = if io_threads > 4 { 2.0 } else { 1.0 };
    [38.0, 38.0, 76.0, 38.0 * io_rows, 38.0, 54.0, 56.0]
}

/// Every stage's rectangle. The wide layout reads as a loop: requests move
/// right along the top (socket receive buffer, network thread, request
/// queue, I/O thread, log append, purgatory) and responses come back left
/// along the bottom (response queue, network thread, socket send buffer).
pub fn pipeline_places(layout: Layout, network_threads: u32, io_threads: u32) -> Vec<(Place, Rect)> {
    let (nt, io) = (network_threads.max(1), io_threads.max(1));
    let mut out = Vec::new();
    match layout {
        Layout::Wide => {
            let (col_w, top) = (132.0, 6.0);
            let col = |i: u32| 8.0 + f64::from(i) * (col_w + 14.0);
            let row_h = 94.0;
            let (row1, row2) = (top, top + row_h + GAP);
            let span = 2.0 * row_h + GAP;
            out.push((Place::SocketReceiveBuffer, Rect::new(col(0), row1, col_w, row_h)));
            out.push((Place::SocketSendBuffer, Rect::new(col(0), row2, col_w, row_h)));
            stack(&mut out, Rect::new(col(1), top, col_w, span), nt, Place::NetworkThread);
            out.push((Place::RequestQueue, Rect::new(col(2), row1, col_w, row_h)));
            stack(&mut out, Rect::new(col(2), row2, col_w, row_h), nt, Place::ResponseQueue);
            stack(&mut out, Rect::new(col(3), top, col_w, span), io, Place::IoThread);
            out.push((Place::LogAppend, Rect::new(col(4), row1, col_w, row_h)));
            out.push((Place::LogRead, Rect::new(col(4), row2, col_w, row_h)));
            out.push((Place::Purgatory, Rect::new(col(5), top, col_w, span)));
            let strip = top + span + GAP;
            out.push((Place::ReplicaFetchers, Rect::new(col(0), strip, 3.0 * col_w + 28.0, 56.0)));
            out.push((Place::Logs, Rect::new(col(3), strip, 3.0 * col_w + 28.0, 56.0)));
        }
        Layout::Narrow => {
            let rows = narrow_rows(io);
            let mut y = 4.0;
            let mut row = |i: usize| {
                let r = (y, rows[i]);
                y += rows[i] + NARROW_GAP;
                r
            };
            let (full_x, full_w) = (6.0, 368.0);
            let half_w = (full_w - NARROW_GAP) / 2.0;
            let right_x = full_x + half_w + NARROW_GAP;
            let (y0, h0) = row(0);
            out.push((Place::SocketReceiveBuffer, Rect::new(full_x, y0, half_w, h0)));
            out.push((Place::SocketSendBuffer, Rect::new(right_x, y0, half_w, h0)));
            let (y1, h1) = row(1);
            side_by_side(&mut out, Rect::new(full_x, y1, full_w, h1), nt, 1, Place::NetworkThread);
            let (y2, h2) = row(2);
            out.push((Place::RequestQueue, Rect::new(full_x, y2, half_w, h2)));
            stack(&mut out, Rect::new(right_x, y2, half_w, h2), nt, Place::ResponseQueue);
            let (y3, h3) = row(3);
            let io_rows = if io > 4 { 2 } else { 1 };
            side_by_side(&mut out, Rect::new(full_x, y3, full_w, h3), io, io_rows, Place::IoThread);
            let (y4, h4) = row(4);
            out.push((Place::LogAppend, Rect::new(full_x, y4, half_w, h4)));
            out.push((Place::LogRead, Rect::new(right_x, y4, half_w, h4)));
            let (y5, h5) = row(5);
            out.push((Place::Purgatory, Rect::new(full_x, y5, full_w, h5)));
            let (y6, h6) = row(6);
            out.push((Place::ReplicaFetchers, Rect::new(full_x, y6, half_w, h6)));
            out.push((Place::Logs, Rect::new(right_x, y6, half_w, h6)));
        }
    }
    out
}

/// `count` places stacked in `area`, top to bottom.
fn stack(out: &mut Vec<(Place, Rect)>, area: Rect, count: u32, place: fn(u32) -> Place) {
    let gap = 4.0;
    let h = (area.h - gap * f64::from(count - 1)) / f64::from(count);
    for i in 0..count {
        out.push((place(i), Rect::new(area.x, area.y + f64::from(i) * (h + gap), area.w, h)));
    }
}

/// `count` places side by side in `area`, over `rows` rows.
fn side_by_side(out: &mut Vec<(Place, Rect)>, area: Rect, count: u32, rows: u32, place: fn(u32) -> Place) {
    let gap = 4.0;
    let per_row = count.div_ceil(rows);
    let w = (area.w - gap * f64::from(per_row - 1)) / f64::from(per_row);
    let h = (area.h - gap * f64::from(rows - 1)) / f64::from(rows);
    for i in 0..count {
        let (r, c) = (i / per_row, i % per_row);
        out.push((place(i), Rect::new(area.x + f64::from(c) * (w + gap), area.y + f64::from(r) * (h + gap), w, h)));
    }
}

/// How many tokens a stage shows before it writes "+N more".
pub fn token_capacity(area: &Rect) -> usize {
    (((area.h - TITLE_H - 2.0) + TOKEN_GAP) / (TOKEN_H + TOKEN_GAP)).floor().max(0.0) as usize
}

/// The rectangle of the `index`th token in a stage, or None when the stage
/// is full (the stage writes how many more wait there instead).
pub fn token_rect(area: &Rect, index: usize) -> Option<Rect> {
    let capacity = token_capacity(area).max(1);
    if index >= capacity {
        return None;
    }
    let y = area.y + TITLE_H + index as f64 * (TOKEN_H + TOKEN_GAP);
    let rect = Rect::new(area.x + 4.0, y, area.w - 8.0, TOKEN_H);
    area.contains(&rect).then_some(rect)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::session::Session;

    /// The words of a voter's election countdown ("election timeout in
    /// 1.9 s", about 150 units wide) stay inside the wide map for every
    /// voter; the rightmost voter's ran past the edge before.
    #[test]
    fn every_voters_countdown_words_stay_inside_the_map() {
        const WORDS_W: f64 = 150.0;
        let (width, _) = map_size(Layout::Wide);
        let s = Session::default();
        let view = s.view();
        let voters: Vec<(u32, NodePlace)> = view
            .quorum
            .iter()
            .flat_map(|q| q.controllers.iter())
            .filter_map(|c| Some((c.id, node_place(&view, NodeId::Controller(c.id), Layout::Wide)?)))
            .collect();
        assert_eq!(voters.len(), 3);
        for (id, p) in voters {
            let (cx, cy) = p.rect.center();
            let (x, _, anchor) = ring_label(Layout::Wide, cx, cy, p.rect.w / 2.0);
            let (left, right) = match anchor {
                "end" => (x - WORDS_W, x),
                _ => (x, x + WORDS_W),
            };
            assert!(left >= 0.0 && right <= width, "controller {id}: {left}..{right} in 0..{width}");
            assert!(right <= p.rect.x || left >= p.rect.x + p.rect.w, "controller {id}: the words miss the circle");
        }
    }

    /// On the phone the words sit below each circle, and the outer voters'
    /// stay inside the map too; the leftmost's ran past its left edge.
    #[test]
    fn every_voters_countdown_words_stay_inside_the_narrow_map() {
        let (width, _) = map_size(Layout::Narrow);
        let view = Session::default().view();
        let quorum = view.quorum.as_ref().expect("a quorum");
        assert_eq!(quorum.controllers.len(), 3);
        for c in &quorum.controllers {
            let p = node_place(&view, NodeId::Controller(c.id), Layout::Narrow).expect("a place");
            let (cx, cy) = p.rect.center();
            let (x, y, anchor) = ring_label(Layout::Narrow, cx, cy, p.rect.w / 2.0);
            assert_eq!(anchor, "middle");
            let (left, right) = (x - COUNTDOWN_WORDS_W / 2.0, x + COUNTDOWN_WORDS_W / 2.0);
            assert!(left >= 0.0 && right <= width, "controller {}: {left}..{right} in 0..{width}", c.id);
            assert!(y > p.rect.y + p.rect.h, "controller {}: the words sit below the circle", c.id);
            assert!(left <= cx && cx <= right, "controller {}: the words are under their circle", c.id);
        }
    }

    #[test]
    fn the_stages_never_overlap_and_stay_inside_the_picture() {
        for layout in [Layout::Wide, Layout::Narrow] {
            for nt in 1..=4 {
                for io in 1..=8 {
                    let (w, h) = pipeline_size(layout, io);
                    let frame = Rect::new(0.0, 0.0, w, h);
                    let places = pipeline_places(layout, nt, io);
                    assert_eq!(places.len() as u32, 2 * nt + io + 8, "{layout:?} {nt} {io}");
                    for (i, (p, r)) in places.iter().enumerate() {
                        assert!(frame.contains(r), "{layout:?} {nt}/{io}: {p:?} {r:?} outside {frame:?}");
                        for (q, s) in &places[i + 1..] {
                            assert!(!r.overlaps(s), "{layout:?} {nt}/{io}: {p:?} {r:?} overlaps {q:?} {s:?}");
                        }
                    }
                }
            }
        }
    }

    /// The page's brokers run the simulation's default thread counts (two
    /// network threads, two I/O threads); up to two network threads and four
    /// I/O threads every stage shows a token. More threads than that (only a
    /// scenario can ask for them) show "+N" in a stage instead.
    #[test]
    fn every_stage_holds_at_least_one_token_and_tokens_stay_inside() {
        for layout in [Layout::Wide, Layout::Narrow] {
            for (place, area) in pipeline_places(layout, 2, 4).into_iter().filter(|(p, _)| *p != Place::Logs) {
                assert!(token_capacity(&area) >= 1, "{layout:?} {place:?} {area:?}");
                let mut shown = Vec::new();
                for i in 0..20 {
                    match token_rect(&area, i) {
                        Some(r) => {
                            assert!(area.contains(&r));
                            assert!(shown.iter().all(|s: &Rect| !s.overlaps(&r)));
                            shown.push(r);
                        }
                        None => assert!(i >= token_capacity(&area)),
                    }
                }
            }
        }
    }

    #[test]
    fn the_map_puts_controllers_above_brokers_above_clients_without_overlap() {
        let view = Session::default().view();
        for layout in [Layout::Wide, Layout::Narrow] {
            let (w, h) = map_size(layout);
            let frame = Rect::new(0.0, 0.0, w, h);
            let mut nodes: Vec<NodeId> = view.quorum.as_ref().unwrap().controllers.iter().map(|c| NodeId::Controller(c.id)).collect();
            nodes.extend(view.brokers.iter().map(|b| NodeId::Broker(b.id)));
            nodes.extend(clients(&view));
            let places: Vec<NodePlace> = nodes.iter().map(|n| node_place(&view, *n, layout).unwrap()).collect();
            for (i, p) in places.iter().enumerate() {
                assert!(frame.contains(&p.rect), "{layout:?} {:?} {:?}", nodes[i], p.rect);
                for q in &places[i + 1..] {
                    assert!(!p.rect.overlaps(&q.rect), "{layout:?} {:?} {:?}", p.rect, q.rect);
                }
            }
            let c = node_place(&view, NodeId::Controller(0), layout).unwrap().rect;
            let b = node_place(&view, NodeId::Broker(0), layout).unwrap().rect;
            let k = node_place(&view, clients(&view)[0], layout).unwrap().rect;
            assert!(c.y + c.h < b.y && b.y + b.h < k.y, "{layout:?}");
        }
    }

    #[test]
    fn a_link_runs_between_the_edges_of_its_two_nodes() {
        let view = Session::default().view();
        let a = node_place(&view, NodeId::Broker(0), Layout::Wide).unwrap();
        let c = node_place(&view, NodeId::Controller(1), Layout::Wide).unwrap();
        let ((x1, y1), (x2, y2)) = link_ends(&a, &c);
        // Leaves the broker's top edge and arrives at the circle's rim.
        assert!((y1 - a.rect.y).abs() < 1e-6 || (x1 - a.rect.x).abs() < 1e-6 || (x1 - a.rect.x - a.rect.w).abs() < 1e-6);
        let (cx, cy) = c.rect.center();
        let rim = ((x2 - cx).powi(2) + (y2 - cy).powi(2)).sqrt();
        assert!((rim - c.rect.w / 2.0).abs() < 1e-6, "{rim}");
    }
}
