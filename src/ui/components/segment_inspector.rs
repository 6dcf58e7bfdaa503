//! The segment inspector: a replica's segments, their offset and time
//! indexes, the last fetch's lookup through them, and any batch decoded field
//! by field beside a hexdump in which the chosen field lights up.

use super::{BatchDetail, Batches, Indexes, Segments};
use crate::sim::ids::TopicPartition;
use crate::sim::view::{last_lookup, ClusterView};
use crate::ui::i18n::Lang;
use crate::ui::session::Session;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The session, for reading a segment's bytes; equal only to itself, so a
/// new run (a new session) draws the inspector afresh.
pub type SharedSession = crate::ui::Shared<RefCell<Session>>;

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
    // The parts below are components with callbacks that keep their
    // identity, so while the simulation plays only the parts whose data
    // changed are drawn again (a batch's hexdump almost never is). Every
    // hook comes before the early returns below: a hook a render skips (at
    // a position with no partition yet, early in the boot) panics the page.
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

