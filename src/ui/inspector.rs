//! The segment inspector: a replica's segments, their offset and time
//! indexes, the last fetch's lookup through them, and any batch decoded field
//! by field beside a hexdump in which the chosen field lights up.

use super::i18n::Lang;
use super::session::Session;
use crate::sim::ids::{RequestId, TopicPartition};
use crate::sim::log::log::SegmentView;
use crate::sim::log::segment::LookupPath;
use crate::sim::view::{last_lookup, BatchInspection, ClusterView};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The session, for reading a segment's bytes; equal only to itself, so a
/// new run (a new session) draws the inspector afresh.
pub type SharedSession = super::Shared<RefCell<Session>>;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub session: SharedSession,
    pub view: Rc<ClusterView>,
}

#[function_component(SegmentInspector)]
pub fn segment_inspector(props: &InspectorProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let partition = use_state(|| 0usize);
    let replica = use_state(|| None::<u32>);
    let segment = use_state(|| None::<i64>);
    let batch = use_state(|| 0usize);
    let field = use_state(|| None::<usize>);

    let view = &props.view;
    let Some(p) = view.partitions.get((*partition).min(view.partitions.len().saturating_sub(1))) else {
        return html! {};
    };
    let tp = TopicPartition::new(p.topic.clone(), p.partition);
    let broker = replica.filter(|b| p.replicas.contains(b)).or(p.leader).or(p.replicas.first().copied()).unwrap_or(0);
    let Some(r) = view.replica(&p.topic, p.partition, broker) else {
        return html! {};
    };
    let seg = segment
        .and_then(|base| r.segments.iter().find(|s| s.base_offset == base))
        .or_else(|| r.segments.last());
    let session = props.session.0.borrow();
    let batches = seg.and_then(|s| session.sim().inspect_segment(&tp, broker, s.base_offset)).unwrap_or_default();
    let lookup = last_lookup(session.sim().trace(), &tp, broker);
    drop(session);

    let on_partition = {
        let (partition, replica, segment, batch, field) =
            (partition.clone(), replica.clone(), segment.clone(), batch.clone(), field.clone());
        Callback::from(move |e: Event| {
            if let Some(v) = e.target_dyn_into::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
                partition.set(v);
                replica.set(None);
                segment.set(None);
                batch.set(0);
                field.set(None);
            }
        })
    };
    let on_replica = {
        let (replica, segment, batch, field) = (replica.clone(), segment.clone(), batch.clone(), field.clone());
        Callback::from(move |e: Event| {
            if let Some(v) = e.target_dyn_into::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
                replica.set(Some(v));
                segment.set(None);
                batch.set(0);
                field.set(None);
            }
        })
    };
    let chosen_batch = batches.get((*batch).min(batches.len().saturating_sub(1)));
    let selected_field = field.and_then(|f| chosen_batch.and_then(|b| b.fields.get(f)).map(|_| f));
    // The parts below are components with callbacks that keep their
    // identity, so while the simulation plays only the parts whose data
    // changed are drawn again (a batch's hexdump almost never is).
    let on_segment = use_callback((segment.setter(), batch.setter(), field.setter()), |base: i64, (segment, batch, field)| {
        segment.set(Some(base));
        batch.set(0);
        field.set(None);
    });
    let on_batch = use_callback((batch.setter(), field.setter()), |i: usize, (batch, field)| {
        batch.set(i);
        field.set(None);
    });
    let on_field = use_callback(field.setter(), |i: usize, field| field.set(Some(i)));

    html! {
        <section class="inspector" aria-label="Segment inspector">
            <h2>{ t.segment_inspector }</h2>
            <p class="hint">{ t.inspector_hint }</p>
            <div class="inspector-choice">
                <label for="inspect-partition">{ t.partition }</label>
                <select id="inspect-partition" aria-label="Inspect partition" onchange={on_partition}>
                    { for view.partitions.iter().enumerate().map(|(i, p)| html! {
                        <option value={i.to_string()} selected={i == *partition}>{ format!("{}-{}", p.topic, p.partition) }</option>
                    }) }
                </select>
                <label for="inspect-replica">{ t.replica }</label>
                <select id="inspect-replica" aria-label="Inspect replica" onchange={on_replica}>
                    { for p.replicas.iter().map(|b| html! {
                        <option value={b.to_string()} selected={*b == broker}>
                            { format!("{} {b}{}", t.broker, if Some(*b) == p.leader { format!(" ({})", t.leader_word) } else { String::new() }) }
                        </option>
                    }) }
                </select>
            </div>
            <Segments segments={r.segments.clone()} chosen={seg.map(|s| s.base_offset)} on_choose={on_segment} />
            if let Some(s) = seg {
                <Indexes segment={s.clone()} lookup={lookup} />
            }
            if batches.is_empty() {
                <p class="hint">{ t.no_segments }</p>
            } else {
                <Batches batches={batches.iter().map(|b| (b.position, b.base_offset, b.last_offset, b.size_bytes)).collect::<Vec<_>>()}
                    chosen={chosen_batch.map(|b| b.position)} on_choose={on_batch} />
            }
            if let Some(b) = chosen_batch {
                <BatchDetail batch={b.clone()} selected_field={selected_field} on_field={on_field} />
            }
        </section>
    }
}

/// Sixteen bytes a row; each byte is coloured by the field it belongs to,
/// and the chosen field's bytes are highlighted.
fn hexdump(bytes: &[u8], fields: &[crate::sim::record::batch::FieldSpan], selected: Option<usize>) -> Html {
    let field_of = |i: usize| fields.iter().position(|f| (f.start as usize..(f.start + f.len) as usize).contains(&i));
    html! {
        <pre class="hex">
            { for bytes.chunks(16).enumerate().map(|(row, chunk)| html! {
                <div class="hex-row">
                    <span class="hex-offset">{ format!("{:08x}  ", row * 16) }</span>
                    { for chunk.iter().enumerate().map(|(col, byte)| {
                        let i = row * 16 + col;
                        let f = field_of(i);
                        let class = classes!(
                            "hex-byte",
                            f.map(|f| if f % 2 == 0 { "even" } else { "odd" }),
                            (f.is_some() && f == selected).then_some("chosen")
                        );
                        html! { <span {class}>{ format!("{byte:02x} ") }</span> }
                    }) }
                </div>
            }) }
        </pre>
    }
}

#[derive(Properties, PartialEq)]
struct SegmentsProps {
    segments: Vec<SegmentView>,
    /// The base offset of the segment shown.
    chosen: Option<i64>,
    on_choose: Callback<i64>,
}

/// The replica's segment files, one button each.
#[function_component(Segments)]
fn segments(props: &SegmentsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <div class="segments" role="list" aria-label="Segments">
            { for props.segments.iter().map(|s| {
                let chosen = props.chosen == Some(s.base_offset);
                let onclick = props.on_choose.reform({
                    let base = s.base_offset;
                    move |_: MouseEvent| base
                });
                html! {
                    <button role="listitem" class={classes!("segment", chosen.then_some("chosen"))} {onclick}
                        aria-label={format!("Segment {}", s.name)} aria-pressed={chosen.to_string()}>
                        <span class="file">{ s.name.clone() }</span>
                        <span class="facts">{ format!("{} · {} {} · {} {}{}",
                            if s.next_offset > s.base_offset { format!("{}–{}", s.base_offset, s.next_offset - 1) } else { format!("{}–", s.base_offset) },
                            s.batch_count, t.batches_word, s.size_bytes, t.bytes_word,
                            if s.is_active { format!(" · {}", t.active_segment) } else { String::new() }) }</span>
                    </button>
                }
            }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct IndexesProps {
    segment: SegmentView,
    /// The last fetch that read this replica: its request, offset and path.
    lookup: Option<(RequestId, i64, LookupPath)>,
}

/// A segment's offset and time indexes, and the last fetch's way through them.
#[function_component(Indexes)]
fn indexes(props: &IndexesProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let s = &props.segment;
    html! {
        <div class="indexes">
            { index_file(
                format!("{} · {}", t.offset_index, s.name.replace(".log", ".index")),
                s.index_entries.iter().map(|(o, pos)| format!("offset {o} → position {pos}")).collect(),
                t.index_empty,
            ) }
            { index_file(
                format!("{} · {}", t.time_index, s.name.replace(".log", ".timeindex")),
                s.time_index_entries.iter().map(|(ts, o)| format!("timestamp {ts} → offset {o}")).collect(),
                t.index_empty,
            ) }
            <div>
                <h3>{ t.last_lookup }</h3>
                { match &props.lookup {
                    None => html! { <p class="hint">{ t.no_lookup }</p> },
                    Some((request, offset, l)) => html! {
                        <ol class="lookup-path">
                            <li>{ format!("{request}: offset {offset} in segment {:020}", l.segment_base_offset) }</li>
                            <li>{ match l.index_entry_used {
                                Some(slot) => format!(".index slot {slot}: offset {} → position {}", l.index_offset, l.index_position),
                                None => format!(".index: no entry ≤ {offset}, start at (base {}, position 0)", l.index_offset),
                            } }</li>
                            { for l.scanned_batches.iter().map(|(pos, base, last)| html! {
                                <li>{ format!("scan batch at position {pos}: offsets {base}–{last}") }</li>
                            }) }
                            <li>{ match l.found_position {
                                Some(pos) => format!("read from position {pos}"),
                                None => "no batch holds the offset".to_string(),
                            } }</li>
                        </ol>
                    },
                } }
            </div>
        </div>
    }
}

/// One index file: its name and its entries, one a line, or a note that it
/// is empty.
fn index_file(title: String, entries: Vec<String>, empty: &'static str) -> Html {
    html! {
        <div>
            <h3>{ title }</h3>
            if entries.is_empty() {
                <p class="hint">{ empty }</p>
            } else {
                <ul class="index-entries">
                    { for entries.iter().map(|e| html! { <li>{ e }</li> }) }
                </ul>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct BatchesProps {
    /// (position, base offset, last offset, size in bytes) of each batch.
    batches: Vec<(u32, i64, i64, u32)>,
    /// The position of the batch shown.
    chosen: Option<u32>,
    /// Takes the index of the batch chosen.
    on_choose: Callback<usize>,
}

/// The segment's batches, one button each.
#[function_component(Batches)]
fn batches(props: &BatchesProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <div class="batches" role="list" aria-label="Batches">
            { for props.batches.iter().enumerate().map(|(i, (position, base, last, size))| {
                let chosen = props.chosen == Some(*position);
                let onclick = props.on_choose.reform(move |_: MouseEvent| i);
                html! {
                    <button role="listitem" class={classes!("batch", chosen.then_some("chosen"))} {onclick}
                        aria-label={format!("Batch at position {position}")} aria-pressed={chosen.to_string()}>
                        { format!("{} {position}: {base}–{last} ({size} {})", t.batch_at, t.bytes_word) }
                    </button>
                }
            }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct BatchDetailProps {
    batch: BatchInspection,
    selected_field: Option<usize>,
    /// Takes the index of the field chosen.
    on_field: Callback<usize>,
}

/// One batch decoded field by field beside its hexdump.
#[function_component(BatchDetail)]
fn batch_detail(props: &BatchDetailProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let b = &props.batch;
    html! {
        <div class="batch-detail">
            <div class="fields">
                <h3>{ format!("{} · {}", t.fields, if b.crc_valid { t.crc_ok } else { t.crc_bad }) }</h3>
                <table>
                    <tbody>
                    { for b.fields.iter().enumerate().map(|(i, f)| {
                        let onclick = props.on_field.reform(move |_: MouseEvent| i);
                        html! {
                            <tr class={classes!((props.selected_field == Some(i)).then_some("chosen"))} {onclick}>
                                <td class="field-name">{ f.name.clone() }</td>
                                <td class="field-bytes">{ format!("{}..{}", f.start, f.start + f.len) }</td>
                                <td class="field-value">{ f.value.clone() }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            </div>
            <div class="hexdump" aria-label="Hexdump">
                <h3>{ t.hexdump }</h3>
                { hexdump(&b.bytes, &b.fields, props.selected_field) }
            </div>
        </div>
    }
}
