use crate::sim::ids::RequestId;
use crate::sim::log::log::SegmentView;
use crate::sim::log::segment::LookupPath;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct IndexesProps {
    pub segment: SegmentView,
    /// The last fetch that read this replica: its request, offset and path.
    pub lookup: Option<(RequestId, i64, LookupPath)>,
}

/// A segment's offset and time indexes, and the last fetch's way through them.
#[function_component(Indexes)]
pub fn indexes(props: &IndexesProps) -> Html {
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
pub fn index_file(title: String, entries: Vec<String>, empty: &'static str) -> Html {
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

