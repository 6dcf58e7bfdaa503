use crate::sim::client::producer::RecordState;
use crate::sim::ids::NodeId;
use crate::sim::view::ProducerView;
use crate::ui::i18n::{self, Lang};
use yew::prelude::*;

/// How many produced records the list shows, the latest.
const RECORDS_LISTED: usize = 50;

#[derive(Properties, PartialEq)]
pub struct ProducedProps {
    pub producers: Vec<ProducerView>,
}

#[function_component(Produced)]
pub fn produced(props: &ProducedProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let mut rows: Vec<(NodeId, i16, &crate::sim::client::producer::RecordOutcome)> =
        props.producers.iter().flat_map(|p| p.records.iter().map(move |r| (p.id, p.acks, r))).collect();
    // A load generator sends thousands: the page lists the latest ones, so
    // a frame never lays out a list that only grows.
    let earlier = rows.len().saturating_sub(RECORDS_LISTED);
    rows.drain(..earlier);
    html! {
        <section class="produced" aria-label="Produced records">
            <h2>{ t.produced_records }</h2>
            if rows.is_empty() {
                <p class="hint">{ t.nothing_produced }</p>
            }
            <ul>
            { for rows.iter().map(|(id, acks, r)| {
                let acks = if *acks == -1 { "all".to_string() } else { acks.to_string() };
                let key = r.key.clone().unwrap_or_else(|| "null".into());
                let state = match &r.state {
                    RecordState::AwaitingMetadata => t.waiting_for_metadata.to_string(),
                    RecordState::Accumulating => t.in_producer_batch.to_string(),
                    RecordState::InFlight { .. } => t.waiting_for_broker.to_string(),
                    RecordState::SentWithoutAck => format!("partition {}: {}", r.partition.unwrap_or(0), t.acks0_no_offset),
                    // "partition P, offset N" stays in this form in both
                    // languages: it is what tests and learners look for.
                    RecordState::Acknowledged { offset } => format!("partition {}, offset {offset}", r.partition.unwrap_or(0)),
                    RecordState::Failed { error } => format!("{} {error}", t.failed_with),
                };
                let why = r.reason.as_ref().map(|reason| i18n::partition_reason(lang, reason, r.partition.unwrap_or(0)));
                html! {
                    <li class="produce-result">
                        <span>{ format!("{id} (acks={acks}) {} {key}: {state}", t.key_word) }</span>
                        if let Some(why) = why {
                            <span class="partition-why" title={t.partition_why}>{ why }</span>
                        }
                    </li>
                }
            }) }
            </ul>
            if earlier > 0 {
                <p class="hint">{ i18n::earlier_records(lang, earlier) }</p>
            }
        </section>
    }
}

