use crate::sim::view::ConsumerView;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConsumedProps {
    pub consumers: Vec<ConsumerView>,
}

#[function_component(Consumed)]
pub fn consumed(props: &ConsumedProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <section class="consumed" aria-label="Consumed records">
            <h2>{ t.consumed_records }</h2>
            { for props.consumers.iter().map(|c| html! {
                <div class="consumer" role="group" aria-label={c.id.to_string()}>
                    if props.consumers.len() > 1 {
                        <h3>{ c.id.to_string() }</h3>
                    }
                    if c.fetches.is_empty() {
                        <p class="hint">{ t.no_fetch_yet }</p>
                    }
                    <ul>
                    { for c.fetches.iter().map(|f| {
                        let text = match &f.result {
                            None => format!("{} fetch {} offset {}: {}", f.request, f.partition, f.fetch_offset, t.waiting),
                            Some(r) if r.error.code() == 0 => format!(
                                "{} fetch {} offset {}: {} {}, {} {}, HW {}",
                                f.request, f.partition, f.fetch_offset, r.records, t.records_word, t.next_offset, r.next_offset, r.high_watermark),
                            Some(r) => format!("{} fetch {} offset {}: {}", f.request, f.partition, f.fetch_offset, r.error),
                        };
                        html! { <li class="fetch-result">{ text }</li> }
                    }) }
                    </ul>
                    <ul class="consumed-records">
                    { for c.consumed.iter().map(|r| {
                        let headers: Vec<String> = r
                            .headers
                            .iter()
                            .map(|(k, v)| format!("{k}={}", v.clone().unwrap_or_else(|| "null".into())))
                            .collect();
                        let headers = if headers.is_empty() { String::new() } else { format!(" [{}]", headers.join(", ")) };
                        html! {
                            <li>{ format!("{} offset {}: {} = {}{headers}", r.partition, r.offset,
                                r.key.clone().unwrap_or_else(|| "null".into()), r.value.clone().unwrap_or_else(|| "null".into())) }</li>
                        }
                    }) }
                    </ul>
                </div>
            }) }
        </section>
    }
}

